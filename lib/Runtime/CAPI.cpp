//===- CAPI.cpp - The C API of tgc_runtime.h ------------------------------===//
//
// Thin wrappers over DispatchCache and the logging functions. Errors are
// return values plus a per-thread message (tgc_dispatch_cache_last_error).
//
//===----------------------------------------------------------------------===//

#include "TuningCache.h"
#include "tgc/Runtime/DispatchCache.h"
#include "tgc/Runtime/tgc_runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <new>
#include <type_traits>

using namespace tgc::runtime;

static_assert(std::is_standard_layout<tgc_arg_desc>::value,
              "tgc_arg_desc must stay a C struct");
static_assert(sizeof(tgc_guard_value) == 16 && sizeof(tgc_guard_info) == 32 &&
                  sizeof(tgc_guard_set_info) == 24,
              "guard metadata layout (read from compiler-emitted data)");
static_assert(sizeof(tgc_dispatch_entry) == 32 &&
                  sizeof(tgc_guard_failure) == 8 &&
                  sizeof(tgc_dispatch_result) == 24,
              "dispatch structs layout");

struct tgc_dispatch_cache {
  DispatchCache cache;
};

namespace {
/// The last error this thread got, and from which cache (nullptr: create).
thread_local std::string lastErrorText;
thread_local const tgc_dispatch_cache *lastErrorCache = nullptr;

void setLastError(const tgc_dispatch_cache *cache, std::string message) {
  lastErrorText = std::move(message);
  lastErrorCache = cache;
}

bool isValidStance(int32_t stance) {
  return stance == TGC_STANCE_ERROR || stance == TGC_STANCE_FALLBACK ||
         stance == TGC_STANCE_CONTINUE;
}
} // namespace

extern "C" {

int32_t tgc_runtime_abi_version(void) { return TGC_RUNTIME_ABI_VERSION; }

tgc_dispatch_cache *
tgc_dispatch_cache_create(const char *function, tgc_recompile_fn recompile,
                          tgc_fallback_fn fallback, void *user,
                          int32_t recompile_limit, int32_t stance) {
  if (!function || !recompile) {
    setLastError(nullptr, "tgc_dispatch_cache_create: the function name and "
                          "the recompile callback are required");
    return nullptr;
  }
  if (recompile_limit < 0) {
    setLastError(nullptr, "tgc_dispatch_cache_create: recompile limit " +
                              std::to_string(recompile_limit) + " is negative");
    return nullptr;
  }
  if (!isValidStance(stance)) {
    setLastError(nullptr, "tgc_dispatch_cache_create: unknown stance " +
                              std::to_string(stance));
    return nullptr;
  }

  RecompileCallback onMiss = [recompile, user](const CompileRequest &request) {
    tgc_dispatch_entry entry = {};
    const char *error = nullptr;
    int32_t status = recompile(user, request.function.c_str(), request.args,
                               request.numArgs, request.failures.data(),
                               static_cast<int32_t>(request.failures.size()),
                               request.reason.c_str(), &entry, &error);
    if (status != 0)
      return CompileResult::failure(error ? error
                                          : "recompile callback returned " +
                                                std::to_string(status));
    return CompileResult::success(entry);
  };
  FallbackCallback onFallback;
  if (fallback)
    onFallback = [fallback, user](const FallbackRequest &request) {
      return fallback(user, request.function.c_str(), request.args,
                      request.numArgs, request.reason.c_str());
    };
  return new (std::nothrow) tgc_dispatch_cache{
      DispatchCache(function, std::move(onMiss), std::move(onFallback),
                    recompile_limit, static_cast<Stance>(stance))};
}

void tgc_dispatch_cache_destroy(tgc_dispatch_cache *cache) { delete cache; }

int32_t tgc_dispatch_cache_dispatch(tgc_dispatch_cache *cache,
                                    const tgc_arg_desc *args, int32_t num_args,
                                    tgc_dispatch_result *out) {
  if (!cache || !out) {
    setLastError(cache, "tgc_dispatch_cache_dispatch: NULL cache or result");
    if (out)
      *out = {TGC_DISPATCH_ERROR, -1, nullptr, nullptr};
    return TGC_DISPATCH_ERROR;
  }
  DispatchResult result = cache->cache.dispatch(args, num_args);
  if (result.status == DispatchStatus::Error)
    setLastError(cache, result.error);
  out->status = static_cast<int32_t>(result.status);
  out->entry_id = result.entryId;
  out->entry = result.entry;
  out->user_data = result.userData;
  return out->status;
}

int32_t tgc_dispatch_cache_set_stance(tgc_dispatch_cache *cache,
                                      int32_t stance) {
  if (!cache || !isValidStance(stance)) {
    setLastError(cache, "tgc_dispatch_cache_set_stance: " +
                            std::string(cache ? "unknown stance " +
                                                    std::to_string(stance)
                                              : "NULL cache"));
    return -1;
  }
  cache->cache.setStance(static_cast<Stance>(stance));
  return 0;
}

int32_t tgc_dispatch_cache_get_stats(const tgc_dispatch_cache *cache,
                                     tgc_dispatch_stats *out) {
  if (!cache || !out) {
    setLastError(cache, "tgc_dispatch_cache_get_stats: NULL argument");
    return -1;
  }
  DispatchStats stats = cache->cache.stats();
  out->hits = stats.hits;
  out->misses = stats.misses;
  out->compiles = stats.compiles;
  out->recompiles = stats.recompiles;
  out->compile_errors = stats.compileErrors;
  out->fallbacks = stats.fallbacks;
  out->errors = stats.errors;
  out->num_entries = static_cast<int32_t>(stats.mruOrder.size());
  out->num_recompile_reasons =
      static_cast<int32_t>(stats.recompileReasons.size());
  return 0;
}

int64_t tgc_dispatch_cache_entry_hits(const tgc_dispatch_cache *cache,
                                      int32_t entry_id) {
  if (!cache)
    return -1;
  DispatchStats stats = cache->cache.stats();
  // Ids of specializations whose compile failed are never handed out, so
  // every id below entryHits.size() is cached.
  if (entry_id < 0 || static_cast<size_t>(entry_id) >= stats.entryHits.size())
    return -1;
  return stats.entryHits[entry_id];
}

int64_t tgc_dispatch_cache_recompile_reason(const tgc_dispatch_cache *cache,
                                            int32_t index, char *buffer,
                                            size_t size) {
  if (!cache)
    return -1;
  DispatchStats stats = cache->cache.stats();
  if (index < 0 || static_cast<size_t>(index) >= stats.recompileReasons.size())
    return -1;
  const std::string &reason = stats.recompileReasons[index];
  if (buffer && size > 0) {
    size_t copied = std::min(reason.size(), size - 1);
    std::memcpy(buffer, reason.data(), copied);
    buffer[copied] = '\0';
  }
  return static_cast<int64_t>(reason.size());
}

const char *tgc_dispatch_cache_last_error(const tgc_dispatch_cache *cache) {
  if (cache && cache != lastErrorCache)
    return "";
  return lastErrorText.c_str();
}

namespace {
/// The first failure of a call of compiled CPU code on this thread.
struct CallFailure {
  tgc_call_failure kind = TGC_CALL_OK;
  const char *message = nullptr; // a constant of the code, or `text`
  std::string text;
};
thread_local CallFailure callFailure;

std::string formatBytes(int64_t bytes) {
  static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  std::string out = std::to_string(bytes) + " bytes";
  if (unit >= 0) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), " (%.1f %s)", value, units[unit]);
    out += buf;
  }
  return out;
}
} // namespace

void tgc_report_check_failure(const char *message) {
  if (callFailure.kind != TGC_CALL_OK)
    return;
  callFailure.kind = TGC_CALL_CHECK_FAILED;
  callFailure.message = message ? message : "a data check failed";
}

void tgc_report_alloc_failure(int64_t bytes, const char *what) {
  if (callFailure.kind == TGC_CALL_NO_MEMORY)
    return;
  // An allocation failure ends the call even after a data check failed:
  // it decides what the caller may read.
  std::string buffer = what ? what : "a buffer";
  callFailure.kind = TGC_CALL_NO_MEMORY;
  callFailure.text =
      bytes >= 0
          ? "cannot allocate " + formatBytes(bytes) + " for " + buffer +
                " (out of memory)"
          : "cannot allocate " + buffer +
                ": its size in bytes does not fit in a 64-bit integer";
  callFailure.message = callFailure.text.c_str();
}

tgc_call_failure tgc_take_call_failure(const char **message) {
  tgc_call_failure kind = callFailure.kind;
  if (message)
    *message = callFailure.message;
  callFailure.kind = TGC_CALL_OK;
  callFailure.message = nullptr;
  return kind;
}

const char *tgc_take_check_failure(void) {
  const char *message = nullptr;
  tgc_take_call_failure(&message);
  return message;
}

void tgc_set_log_callback(tgc_log_fn callback, void *user) {
  if (!callback) {
    setLogSink(nullptr);
    return;
  }
  setLogSink([callback, user](const std::string &line) {
    callback(user, line.c_str());
  });
}

int32_t tgc_set_logs(const char *spec) {
  std::vector<std::string> unknown;
  setLogCategories(parseLogSpec(spec ? spec : "", &unknown));
  for (const std::string &name : unknown)
    logLine("tgc_set_logs: unknown log category '" + name +
            "' ignored (known: recompiles, guards, all)");
  return unknown.empty() ? 0 : -1;
}

uint32_t tgc_log_categories(void) { return logCategories(); }

uint32_t tgc_reload_logs_from_env(void) { return reloadLogConfigFromEnv(); }

void tgc_set_gemm_tuning_cache(const char *dir) {
  tgc::runtime::setTuningCacheDir(dir ? dir : "");
}

} // extern "C"
