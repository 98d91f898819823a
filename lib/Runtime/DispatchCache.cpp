//===- DispatchCache.cpp - Guard-dispatch cache of specializations --------===//
//
// The hit path runs the cached guard functions under one uncontended mutex,
// most recently hit first, and rotates the winner to the front: no
// allocation, no formatting. Everything else (reasons, logging, the
// recompile limit and the stance) is on the miss path, which runs at most
// once per compile or per fallback call.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/DispatchCache.h"

#include <algorithm>
#include <utility>

using namespace tgc::runtime;

namespace {
/// The message of this thread's last failed dispatch (DispatchResult::error
/// points into it).
thread_local std::string threadError;
} // namespace

const char *tgc::runtime::stanceName(Stance stance) {
  switch (stance) {
  case Stance::Error:
    return "error";
  case Stance::Fallback:
    return "fallback";
  case Stance::Continue:
    return "continue";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

std::string tgc::runtime::formatGuardValue(const tgc_guard_value &value,
                                           const tgc_arg_desc *args,
                                           int32_t numArgs) {
  std::string text = value.name ? value.name : "<unnamed>";
  text += " = ";
  // The metadata and the descriptors come from different places (the
  // compiler, the caller): check every index before reading.
  if (!args || value.arg < 0 || value.arg >= numArgs)
    return text + "?";
  const tgc_arg_desc &arg = args[value.arg];
  if (value.dim == -1) {
    if (arg.rank != -1)
      return text + "?";
    return text + std::to_string(arg.scalar);
  }
  if (value.dim < 0 || arg.rank < 0 || value.dim >= arg.rank || !arg.sizes)
    return text + "?";
  return text + std::to_string(arg.sizes[value.dim]);
}

std::string tgc::runtime::describeGuardFailure(const tgc_guard_set_info *info,
                                               int32_t guard,
                                               const tgc_arg_desc *args,
                                               int32_t numArgs) {
  std::string text = "guard " + std::to_string(guard) + " failed";
  if (guard < 0)
    return text + " (not a guard index: the guard function is broken)";
  if (!info || !info->guards || guard >= info->num_guards)
    return text + " (no metadata for this guard)";
  const tgc_guard_info &failed = info->guards[guard];
  text += ": ";
  text += failed.text ? failed.text : "<no text>";
  if (failed.reason && *failed.reason) {
    text += " (";
    text += failed.reason;
    text += ")";
  }
  if (failed.values && failed.num_values > 0) {
    for (int32_t i = 0; i < failed.num_values; ++i) {
      text += i == 0 ? ": " : ", ";
      text += formatGuardValue(failed.values[i], args, numArgs);
    }
  }
  return text;
}

std::vector<std::string>
tgc::runtime::formatGuardSet(const tgc_guard_set_info *info) {
  std::vector<std::string> lines;
  if (!info || !info->guards)
    return lines;
  for (int32_t i = 0; i < info->num_guards; ++i) {
    const tgc_guard_info &guard = info->guards[i];
    std::string line = "  [" + std::to_string(i) + "] ";
    line += guard.text ? guard.text : "<no text>";
    if (guard.reason && *guard.reason) {
      line += "  (";
      line += guard.reason;
      line += ")";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

//===----------------------------------------------------------------------===//
// DispatchCache
//===----------------------------------------------------------------------===//

DispatchCache::DispatchCache(std::string function, RecompileCallback recompile,
                             FallbackCallback fallback, int32_t recompileLimit,
                             Stance stance)
    : name(std::move(function)), recompile(std::move(recompile)),
      fallback(std::move(fallback)), limit(std::max(recompileLimit, 0)),
      currentStance(stance) {}

void DispatchCache::setStance(Stance stance) {
  std::lock_guard<std::mutex> lock(mutex);
  currentStance = stance;
}

Stance DispatchCache::stance() const {
  std::lock_guard<std::mutex> lock(mutex);
  return currentStance;
}

void DispatchCache::setRecompileLimit(int32_t newLimit) {
  std::lock_guard<std::mutex> lock(mutex);
  limit = std::max(newLimit, 0);
}

int32_t DispatchCache::recompileLimit() const {
  std::lock_guard<std::mutex> lock(mutex);
  return limit;
}

DispatchStats DispatchCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  DispatchStats result = counters;
  result.entryHits.assign(nextEntryId, 0);
  for (const Entry &entry : entries) {
    result.entryHits[entry.id] = entry.hits;
    result.mruOrder.push_back(entry.id);
  }
  return result;
}

std::string DispatchCache::lastError() const {
  std::lock_guard<std::mutex> lock(mutex);
  return lastErrorMessage;
}

DispatchResult DispatchCache::hitAt(size_t index) {
  Entry *begin = entries.data();
  ++begin[index].hits;
  ++counters.hits;
  if (index != 0) {
    // Move-to-front: one element moves, the ones before it shift by one
    // (std::rotate's general algorithm is measurably slower here).
    Entry hit = begin[index];
    std::move_backward(begin, begin + index, begin + index + 1);
    begin[0] = hit;
  }
  return {DispatchStatus::Hit, begin->id, begin->entry, begin->userData,
          nullptr};
}

DispatchResult DispatchCache::fail(std::string message) {
  // Called with `mutex` held.
  ++counters.errors;
  lastErrorMessage = message;
  threadError = std::move(message);
  return {DispatchStatus::Error, -1, nullptr, nullptr, threadError.c_str()};
}

DispatchResult DispatchCache::dispatch(const tgc_arg_desc *args,
                                       int32_t numArgs) {
  if (numArgs < 0 || (numArgs > 0 && !args)) {
    std::lock_guard<std::mutex> lock(mutex);
    return fail(name + ": invalid call: " +
                (numArgs < 0 ? "num_args is " + std::to_string(numArgs)
                             : "args is NULL with num_args " +
                                   std::to_string(numArgs)));
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    const Entry *begin = entries.data();
    size_t size = entries.size();
    for (size_t i = 0; i != size; ++i)
      if (begin[i].guard(args, numArgs) == -1)
        return hitAt(i);
  }
  return dispatchMiss(args, numArgs);
}

DispatchResult DispatchCache::dispatchMiss(const tgc_arg_desc *args,
                                           int32_t numArgs) {
  std::lock_guard<std::mutex> missLock(missMutex);
  // Log lines are written after `mutex` is released: a sink may look at
  // stats().
  std::vector<std::string> logs;
  auto flushLogs = [&logs] {
    for (const std::string &line : logs)
      logLine(line);
    logs.clear();
  };

  std::vector<GuardFailure> failures;
  std::string reason;
  bool isRecompile;
  {
    std::unique_lock<std::mutex> lock(mutex);
    // Another thread may have compiled what this call needs while it waited
    // for missMutex.
    for (size_t i = 0, e = entries.size(); i != e; ++i) {
      int32_t failed = entries[i].guard(args, numArgs);
      if (failed == -1)
        return hitAt(i);
      failures.push_back({entries[i].id, failed});
    }
    ++counters.misses;

    isRecompile = !entries.empty();
    std::string failure;
    if (!isRecompile) {
      reason = "compiling " + name + " (first call)";
    } else {
      const Entry &mru = entries.front();
      failure =
          describeGuardFailure(mru.info, failures.front().guard, args, numArgs);
      if (size_t others = failures.size() - 1)
        failure += "; " + std::to_string(others) + " other specialization" +
                   (others == 1 ? "" : "s") + " also failed";
      reason = "recompiling " + name + ": " + failure;
    }

    if (isRecompile && counters.recompiles >= limit) {
      std::string limitText =
          name + ": recompile limit (" + std::to_string(limit) + ") reached";
      switch (currentStance) {
      case Stance::Error:
        return fail(limitText + "; last: " + failure);
      case Stance::Fallback: {
        ++counters.fallbacks;
        if (loggedFallbackReasons.insert(failure).second)
          logs.push_back(limitText +
                         ", running the reference path: " + failure);
        lock.unlock();
        flushLogs();
        void *reference =
            fallback ? fallback({name, args, numArgs, reason}) : nullptr;
        return {DispatchStatus::Fallback, -1, reference, nullptr, nullptr};
      }
      case Stance::Continue:
        if (!continueLogged) {
          continueLogged = true;
          logs.push_back(limitText +
                         ", compiling anyway (stance continue): " + failure);
        }
        break;
      }
    }

    if (isRecompile) {
      ++counters.recompiles;
      counters.recompileReasons.push_back(reason);
    }
    if (isLogEnabled(LogRecompiles))
      logs.push_back(reason);
  }
  flushLogs();

  // The compiler runs without `mutex`: other threads keep hitting.
  CompileResult compiled =
      recompile
          ? recompile({name, args, numArgs, failures, reason, isRecompile})
          : CompileResult::failure("no recompile callback");

  std::unique_lock<std::mutex> lock(mutex);
  if (!compiled.ok) {
    ++counters.compileErrors;
    return fail(name + ": compile failed: " +
                (compiled.error.empty() ? "(no message)" : compiled.error));
  }
  const DispatchEntry &entry = compiled.entry;
  if (!entry.guard) {
    ++counters.compileErrors;
    return fail(name + ": compile failed: the new specialization has no "
                       "guard function");
  }
  // A specialization that rejects the arguments it was compiled for would
  // be recompiled on every call: report the compiler bug instead.
  int32_t failed = entry.guard(args, numArgs);
  if (failed != -1) {
    ++counters.compileErrors;
    return fail(name +
                ": compile failed: the new specialization rejects "
                "the arguments it was compiled for: " +
                describeGuardFailure(entry.info, failed, args, numArgs));
  }

  Entry added{entry.guard, entry.entry, entry.user_data,
              entry.info,  0,           nextEntryId++};
  entries.insert(entries.begin(), added);
  ++counters.compiles;

  if (isLogEnabled(LogGuards)) {
    std::vector<std::string> lines = formatGuardSet(entry.info);
    std::string header =
        "guards of " + name + ", specialization " + std::to_string(added.id);
    if (!entry.info || !entry.info->guards)
      header += ": no guard metadata";
    else
      header += " (" + std::to_string(lines.size()) + " guards):";
    logs.push_back(std::move(header));
    for (std::string &line : lines)
      logs.push_back(std::move(line));
  }
  lock.unlock();
  flushLogs();
  return {DispatchStatus::Compiled, added.id, added.entry, added.userData,
          nullptr};
}
