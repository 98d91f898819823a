//===- Logging.cpp - TGC_LOGS and the log sink ----------------------------===//
//
// Log lines go to stderr with a "[tgc] " prefix, or to a sink installed by a
// test or a host (Python). Categories come from TGC_LOGS, read once on first
// use; reloadLogConfigFromEnv() re-reads it.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/DispatchCache.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

using namespace tgc::runtime;

namespace {
/// Bit 31 marks "not read yet": the categories only use the low bits.
constexpr uint32_t kUnread = 1u << 31;
std::atomic<uint32_t> categories{kUnread};

struct SinkState {
  std::mutex mutex;
  LogSink sink;
};

SinkState &sinkState() {
  // Never destroyed, so logging from static destructors stays safe.
  static SinkState *state = new SinkState();
  return *state;
}

std::string_view trim(std::string_view text) {
  const char *blanks = " \t\r\n";
  size_t begin = text.find_first_not_of(blanks);
  if (begin == std::string_view::npos)
    return {};
  size_t end = text.find_last_not_of(blanks);
  return text.substr(begin, end - begin + 1);
}
} // namespace

uint32_t tgc::runtime::parseLogSpec(std::string_view spec,
                                    std::vector<std::string> *unknown) {
  uint32_t result = 0;
  while (true) {
    size_t comma = spec.find(',');
    std::string_view name = trim(spec.substr(0, comma));
    if (!name.empty() && name.front() == '+')
      name = trim(name.substr(1));
    if (name == "recompiles")
      result |= LogRecompiles;
    else if (name == "guards")
      result |= LogGuards;
    else if (name == "all")
      result |= LogAll;
    else if (!name.empty() && unknown)
      unknown->emplace_back(name);
    if (comma == std::string_view::npos)
      break;
    spec.remove_prefix(comma + 1);
  }
  return result;
}

uint32_t tgc::runtime::logCategories() {
  uint32_t value = categories.load(std::memory_order_relaxed);
  if (value & kUnread)
    return reloadLogConfigFromEnv();
  return value;
}

void tgc::runtime::setLogCategories(uint32_t value) {
  categories.store(value & LogAll, std::memory_order_relaxed);
}

uint32_t tgc::runtime::reloadLogConfigFromEnv() {
  const char *spec = std::getenv("TGC_LOGS");
  std::vector<std::string> unknown;
  uint32_t value = spec ? parseLogSpec(spec, &unknown) : 0;
  setLogCategories(value);
  for (const std::string &name : unknown)
    logLine("TGC_LOGS: unknown log category '" + name +
            "' ignored (known: recompiles, guards, all)");
  return value;
}

void tgc::runtime::setLogSink(LogSink sink) {
  SinkState &state = sinkState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.sink = std::move(sink);
}

void tgc::runtime::logLine(std::string_view message) {
  std::string line = "[tgc] ";
  line.append(message);
  SinkState &state = sinkState();
  // Held while writing, so lines of different threads never interleave.
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.sink) {
    state.sink(line);
    return;
  }
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}
