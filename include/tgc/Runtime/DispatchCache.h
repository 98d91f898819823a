//===- DispatchCache.h - Guard-dispatch cache -------------------*- C++ -*-===//
//
// A compiled function is a list of specializations, each a compiled guard
// function plus an entry point. DispatchCache picks the specialization whose
// guards accept a call's arguments (most recently hit first), asks the
// compiler for a new one on a miss, and applies the recompile limit and the
// stance. Plain C++17, no MLIR or LLVM dependency. See docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_DISPATCHCACHE_H
#define TGC_RUNTIME_DISPATCHCACHE_H

#include "tgc/Runtime/tgc_runtime.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace tgc::runtime {

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// What a miss does once the recompile limit is reached.
enum class Stance : int32_t {
  Error = TGC_STANCE_ERROR,
  Fallback = TGC_STANCE_FALLBACK,
  Continue = TGC_STANCE_CONTINUE,
};

/// "error", "fallback" or "continue".
const char *stanceName(Stance stance);

inline constexpr int32_t kDefaultRecompileLimit = TGC_DEFAULT_RECOMPILE_LIMIT;

/// One specialization: {guard, info, entry, user_data}. Shared with the C API.
using DispatchEntry = tgc_dispatch_entry;
/// {entry id, guard index}: the first guard a cached specialization failed.
using GuardFailure = tgc_guard_failure;

enum class DispatchStatus : int32_t {
  Hit = TGC_DISPATCH_HIT,
  Compiled = TGC_DISPATCH_COMPILED,
  Fallback = TGC_DISPATCH_FALLBACK,
  Error = TGC_DISPATCH_ERROR,
};

struct DispatchResult {
  DispatchStatus status;
  /// Hit, Compiled: the specialization's id (compile order, from 0); else -1.
  int32_t entryId;
  /// Hit, Compiled: its entry point. Fallback: what the fallback callback
  /// returned (nullptr without one). Error: nullptr.
  void *entry;
  /// Hit, Compiled: its user_data; else nullptr.
  void *userData;
  /// Error: the message, owned by this thread and valid until its next
  /// dispatch that fails; else nullptr.
  const char *error;

  bool hasEntry() const {
    return status == DispatchStatus::Hit || status == DispatchStatus::Compiled;
  }
};

/// What the recompile callback is asked to compile.
struct CompileRequest {
  const std::string &function;
  const tgc_arg_desc *args;
  int32_t numArgs;
  /// One per cached specialization, most recently used first; empty on the
  /// first call.
  const std::vector<GuardFailure> &failures;
  /// "compiling f (first call)" or "recompiling f: guard 8 failed: ...".
  const std::string &reason;
  bool isRecompile;
};

/// The recompile callback's answer: a new specialization or an error.
struct CompileResult {
  bool ok = false;
  DispatchEntry entry = {};
  std::string error;

  static CompileResult success(DispatchEntry entry) {
    CompileResult result;
    result.ok = true;
    result.entry = entry;
    return result;
  }
  static CompileResult failure(std::string message) {
    CompileResult result;
    result.error = std::move(message);
    return result;
  }
};

using RecompileCallback = std::function<CompileResult(const CompileRequest &)>;

struct FallbackRequest {
  const std::string &function;
  const tgc_arg_desc *args;
  int32_t numArgs;
  const std::string &reason;
};

/// Returns the reference entry point to report in the result, or nullptr.
using FallbackCallback = std::function<void *(const FallbackRequest &)>;

struct DispatchStats {
  int64_t hits = 0;
  int64_t misses = 0;
  /// Specializations added, the first call's included.
  int64_t compiles = 0;
  /// Recompile callbacks made while the cache held a specialization
  /// (successful or not): the count compared with the recompile limit.
  int64_t recompiles = 0;
  int64_t compileErrors = 0;
  int64_t fallbacks = 0;
  int64_t errors = 0;
  /// Hits per specialization, indexed by id.
  std::vector<int64_t> entryHits;
  /// Ids of the cached specializations, most recently hit first.
  std::vector<int32_t> mruOrder;
  /// The reason of each recompile, oldest first.
  std::vector<std::string> recompileReasons;
};

/// The guard-dispatch cache of one compiled function.
///
/// Thread safety: dispatch() and every other member may be called from any
/// number of threads. A hit holds a mutex while it runs the guards and
/// moves the winner to the front (uncontended, that costs a few ns, see
/// docs/performance.md); a miss serializes on a second mutex, so one
/// specialization is compiled once even when several threads miss at the
/// same time, and hits of other threads go on while the compiler runs. The
/// callbacks must not call dispatch() on the same cache.
class DispatchCache {
public:
  DispatchCache(std::string function, RecompileCallback recompile,
                FallbackCallback fallback = nullptr,
                int32_t recompileLimit = kDefaultRecompileLimit,
                Stance stance = Stance::Error);
  DispatchCache(const DispatchCache &) = delete;
  DispatchCache &operator=(const DispatchCache &) = delete;

  /// Picks the specialization for `args`. Does not allocate on a hit.
  DispatchResult dispatch(const tgc_arg_desc *args, int32_t numArgs);

  void setStance(Stance stance);
  Stance stance() const;
  /// A negative limit is treated as 0.
  void setRecompileLimit(int32_t limit);
  int32_t recompileLimit() const;

  const std::string &function() const { return name; }
  DispatchStats stats() const;
  /// The last error any thread got from this cache ("" if none).
  std::string lastError() const;

private:
  struct Entry {
    tgc_guard_fn guard;
    void *entry;
    void *userData;
    const tgc_guard_set_info *info;
    int64_t hits;
    int32_t id;
  };

  DispatchResult dispatchMiss(const tgc_arg_desc *args, int32_t numArgs);
  DispatchResult hitAt(size_t index);
  DispatchResult fail(std::string message);

  const std::string name;
  const RecompileCallback recompile;
  const FallbackCallback fallback;

  /// Guards everything below. Held by hits.
  mutable std::mutex mutex;
  /// Serializes misses, so a recompile runs without blocking hits.
  std::mutex missMutex;

  std::vector<Entry> entries; // most recently hit first
  int32_t nextEntryId = 0;
  int32_t limit;
  Stance currentStance;
  bool continueLogged = false;
  std::unordered_set<std::string> loggedFallbackReasons;
  std::string lastErrorMessage;
  DispatchStats counters; // entryHits and mruOrder are filled by stats()
};

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

/// "s0 = 7", or "s0 = ?" when the value's argument or dimension does not
/// exist in `args` (never reads outside the descriptors).
std::string formatGuardValue(const tgc_guard_value &value,
                             const tgc_arg_desc *args, int32_t numArgs);

/// "guard 8 failed: s0 >= 10 (required by ...): s0 = 7".
std::string describeGuardFailure(const tgc_guard_set_info *info, int32_t guard,
                                 const tgc_arg_desc *args, int32_t numArgs);

/// One line per guard, "  [i] text  (reason)", without the log prefix.
std::vector<std::string> formatGuardSet(const tgc_guard_set_info *info);

//===----------------------------------------------------------------------===//
// Logging (TGC_LOGS)
//===----------------------------------------------------------------------===//

enum LogCategory : uint32_t {
  LogRecompiles = TGC_LOG_RECOMPILES,
  LogGuards = TGC_LOG_GUARDS,
  LogAll = TGC_LOG_ALL,
};

/// Parses the TGC_LOGS syntax: comma-separated names among "recompiles",
/// "guards", "all" ("+name" means the same as "name"); blanks around names
/// are ignored. Unknown names go to `unknown` when it is given.
uint32_t parseLogSpec(std::string_view spec,
                      std::vector<std::string> *unknown = nullptr);

/// The enabled categories; reads TGC_LOGS on first use.
uint32_t logCategories();
inline bool isLogEnabled(LogCategory category) {
  return (logCategories() & category) != 0;
}
void setLogCategories(uint32_t categories);
/// Re-reads TGC_LOGS (logging unknown names) and returns the categories.
uint32_t reloadLogConfigFromEnv();

/// Receives each line with its "[tgc] " prefix and without a newline.
using LogSink = std::function<void(const std::string &line)>;
/// Redirects log lines; nullptr restores stderr. The sink must not log.
void setLogSink(LogSink sink);

/// Writes "[tgc] " + `message` to the sink, whatever the categories.
void logLine(std::string_view message);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_DISPATCHCACHE_H
