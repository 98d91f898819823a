//===- dispatch_bench.cpp - Cost of a guard-dispatch cache hit ------------===//
//
// ns per dispatch on a hit, for 1, 4 and 16 tensor arguments, with 1 or 4
// cached specializations, next to the cost of calling the guard functions
// directly, so the cache's own overhead (lock, move-to-front, counters) is
// visible. See docs/performance.md.
//
// The guard functions are compiled by TGC (utils/bench/CMakeLists.txt runs
// tgc-frontend-pipeline with lower-guards on functions of 1, 4 and 16
// tensors f32[s_i, 64 + spec]): per argument, rank, dtype, device, the
// 0/1-specialization range of s_i, the static inner size and contiguity
// through the strides.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/DispatchCache.h"
#include "tgc/Runtime/tgc_runtime.h"

#include <benchmark/benchmark.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace tgc::runtime;

namespace {

constexpr int kSpecs = 4;
constexpr int64_t kInner = 64;

} // namespace

// The compiled guard functions (dispatch_guards.o).
#define TGC_DECLARE_GUARDS(N)                                                  \
  extern "C" int32_t tgc_guard_bench##N##_0(const tgc_arg_desc *, int32_t);    \
  extern "C" int32_t tgc_guard_bench##N##_1(const tgc_arg_desc *, int32_t);    \
  extern "C" int32_t tgc_guard_bench##N##_2(const tgc_arg_desc *, int32_t);    \
  extern "C" int32_t tgc_guard_bench##N##_3(const tgc_arg_desc *, int32_t);
TGC_DECLARE_GUARDS(1)
TGC_DECLARE_GUARDS(4)
TGC_DECLARE_GUARDS(16)
#undef TGC_DECLARE_GUARDS

namespace {

/// Specialization `spec` of a function of `N` tensors x_i: f32[s_i, 64],
/// contiguous; specializations differ in x_0's inner size (64 + spec).
template <int N> std::array<tgc_guard_fn, kSpecs> compiledGuards();
template <> std::array<tgc_guard_fn, kSpecs> compiledGuards<1>() {
  return {tgc_guard_bench1_0, tgc_guard_bench1_1, tgc_guard_bench1_2,
          tgc_guard_bench1_3};
}
template <> std::array<tgc_guard_fn, kSpecs> compiledGuards<4>() {
  return {tgc_guard_bench4_0, tgc_guard_bench4_1, tgc_guard_bench4_2,
          tgc_guard_bench4_3};
}
template <> std::array<tgc_guard_fn, kSpecs> compiledGuards<16>() {
  return {tgc_guard_bench16_0, tgc_guard_bench16_1, tgc_guard_bench16_2,
          tgc_guard_bench16_3};
}

/// The arguments of one call matching specialization `spec`.
struct Call {
  std::vector<std::array<int64_t, 2>> sizes, strides;
  std::vector<tgc_arg_desc> args;
  std::vector<float> storage = std::vector<float>(1);

  Call(int n, int spec) : sizes(n), strides(n), args(n) {
    for (int i = 0; i < n; ++i) {
      sizes[i] = {8 + i, kInner + (i == 0 ? spec : 0)};
      strides[i] = {sizes[i][1], 1};
      tgc_arg_desc &arg = args[i];
      arg = {};
      arg.data = storage.data();
      arg.sizes = sizes[i].data();
      arg.strides = strides[i].data();
      arg.rank = 2;
      arg.dtype = TGC_DTYPE_F32;
      arg.device_type = TGC_DEVICE_CPU;
    }
  }
};

template <int N> struct Fixture {
  std::array<tgc_guard_fn, kSpecs> guards = compiledGuards<N>();
  std::vector<Call> calls;
  int entryTokens[kSpecs] = {};
  std::unique_ptr<DispatchCache> cache;

  explicit Fixture(int specs) {
    for (int spec = 0; spec < kSpecs; ++spec)
      calls.emplace_back(N, spec);
    cache = std::make_unique<DispatchCache>(
        "bench", [this](const CompileRequest &request) {
          for (int spec = 0; spec < kSpecs; ++spec)
            if (guards[spec](request.args, request.numArgs) == -1)
              return CompileResult::success(
                  {guards[spec], nullptr, &entryTokens[spec], nullptr});
          return CompileResult::failure("no specialization");
        });
    // Compiled in order 0, 1, ..., so the most recently used is the last.
    for (int spec = 0; spec < specs; ++spec)
      cache->dispatch(calls[spec].args.data(), N);
  }
};

/// Baseline: one call of the matching guard function.
template <int N> void guardDirect(benchmark::State &state) {
  Fixture<N> fixture(0);
  tgc_guard_fn guard = fixture.guards[0];
  const tgc_arg_desc *args = fixture.calls[0].args.data();
  benchmark::DoNotOptimize(guard);
  for (auto _ : state) {
    int32_t failed = guard(args, N);
    benchmark::DoNotOptimize(failed);
  }
}

/// Baseline for a hit on the last of 4: the 3 other guard functions (each
/// failing at x_0's inner size), then the matching one, called directly.
template <int N> void guardScanLastOf4(benchmark::State &state) {
  Fixture<N> fixture(0);
  std::array<tgc_guard_fn, kSpecs> guards = fixture.guards;
  benchmark::DoNotOptimize(guards);
  int spec = 0;
  for (auto _ : state) {
    const tgc_arg_desc *args = fixture.calls[spec].args.data();
    for (int j = 1; j <= kSpecs; ++j)
      if (guards[(spec + j) % kSpecs](args, N) == -1)
        break;
    spec = (spec + 1) % kSpecs;
    benchmark::ClobberMemory();
  }
}

/// A hit on the most recently used specialization among `specs`.
template <int N> void cacheHitMRU(benchmark::State &state, int specs) {
  Fixture<N> fixture(specs);
  const tgc_arg_desc *args = fixture.calls[specs - 1].args.data();
  for (auto _ : state) {
    DispatchResult result = fixture.cache->dispatch(args, N);
    if (result.status != DispatchStatus::Hit) {
      state.SkipWithError("not a hit");
      break;
    }
    benchmark::DoNotOptimize(result.entry);
  }
}

/// Round-robin over 4 inputs, one per specialization: with move-to-front,
/// each call's match is the least recently used, tried last.
template <int N> void cacheHitLastOf4(benchmark::State &state) {
  Fixture<N> fixture(kSpecs);
  int spec = 0;
  for (auto _ : state) {
    DispatchResult result =
        fixture.cache->dispatch(fixture.calls[spec].args.data(), N);
    if (result.status != DispatchStatus::Hit ||
        result.entry != &fixture.entryTokens[spec]) {
      state.SkipWithError("not the expected hit");
      break;
    }
    spec = (spec + 1) % kSpecs;
    benchmark::DoNotOptimize(result.entry);
  }
  // The next input's specialization must be the least recently used.
  if (!state.error_occurred() && fixture.cache->stats().mruOrder.back() != spec)
    state.SkipWithError("the hit was not the last specialization");
}

/// Several threads hitting one shared cache (lock contention).
template <int N> void cacheHitMRUShared(benchmark::State &state) {
  static Fixture<N> *shared = new Fixture<N>(1);
  const tgc_arg_desc *args = shared->calls[0].args.data();
  for (auto _ : state) {
    DispatchResult result = shared->cache->dispatch(args, N);
    benchmark::DoNotOptimize(result.entry);
  }
}

/// What the hit path's lock costs uncontended.
void mutexLockUnlock(benchmark::State &state) {
  std::mutex mutex;
  for (auto _ : state) {
    mutex.lock();
    benchmark::ClobberMemory();
    mutex.unlock();
  }
}

template <int N> void registerFor() {
  std::string suffix = "/args:" + std::to_string(N);
  benchmark::RegisterBenchmark(("guard_direct" + suffix).c_str(),
                               guardDirect<N>);
  benchmark::RegisterBenchmark(
      ("cache_hit_1spec" + suffix).c_str(),
      [](benchmark::State &state) { cacheHitMRU<N>(state, 1); });
  benchmark::RegisterBenchmark(
      ("cache_hit_4spec_mru" + suffix).c_str(),
      [](benchmark::State &state) { cacheHitMRU<N>(state, kSpecs); });
  benchmark::RegisterBenchmark(("guard_scan_4spec_last" + suffix).c_str(),
                               guardScanLastOf4<N>);
  benchmark::RegisterBenchmark(("cache_hit_4spec_last" + suffix).c_str(),
                               cacheHitLastOf4<N>);
}

} // namespace

int main(int argc, char **argv) {
  // A process that ever started a thread pays for real atomics in
  // std::mutex (glibc skips them while the process is single-threaded).
  // Python with PyTorch always has threads: measure that case.
  std::thread([] {}).join();
  registerFor<1>();
  registerFor<4>();
  registerFor<16>();
  benchmark::RegisterBenchmark("cache_hit_1spec_shared/args:4",
                               cacheHitMRUShared<4>)
      ->Threads(1)
      ->Threads(2);
  benchmark::RegisterBenchmark("mutex_lock_unlock", mutexLockUnlock);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
