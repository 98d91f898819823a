//===- DispatchCacheTest.cpp - Guard-dispatch cache tests -----------------===//
//
// The guard functions here are written by hand to behave like compiled ones
// (same ABI, same "index of the first failed guard" contract, metadata as
// the compiler emits it).
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/DispatchCache.h"
#include "tgc/Runtime/tgc_runtime.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

extern "C" int tgc_test_c_api_round_trip(char *message, size_t size);

using namespace tgc::runtime;

namespace {

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

/// A tensor argument that owns its sizes and strides.
struct Tensor {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int32_t dtype = TGC_DTYPE_F32;

  static Tensor contiguous(std::vector<int64_t> sizes,
                           int32_t dtype = TGC_DTYPE_F32) {
    Tensor tensor;
    tensor.strides.assign(sizes.size(), 1);
    for (size_t i = sizes.size(); i > 1; --i)
      tensor.strides[i - 2] = tensor.strides[i - 1] * sizes[i - 1];
    tensor.sizes = std::move(sizes);
    tensor.dtype = dtype;
    return tensor;
  }

  tgc_arg_desc desc() const {
    tgc_arg_desc desc = {};
    desc.data = reinterpret_cast<void *>(0x1000);
    desc.sizes = sizes.data();
    desc.strides = strides.data();
    desc.rank = static_cast<int64_t>(sizes.size());
    desc.dtype = dtype;
    desc.device_type = TGC_DEVICE_CPU;
    return desc;
  }
};

tgc_arg_desc scalarArg(int64_t value) {
  tgc_arg_desc desc = {};
  desc.rank = -1;
  desc.scalar = value;
  desc.dtype = TGC_DTYPE_I64;
  return desc;
}

/// topk(x, k=10, out=(values, indices)) with x: f32[s0], values: f32[10],
/// indices: i64[10] (seed 000).
struct TopkCall {
  Tensor x, values, indices;
  std::vector<tgc_arg_desc> args;

  explicit TopkCall(int64_t s0, int32_t xDtype = TGC_DTYPE_F32)
      : x(Tensor::contiguous({s0}, xDtype)), values(Tensor::contiguous({10})),
        indices(Tensor::contiguous({10}, TGC_DTYPE_I64)) {
    update();
  }
  void update() { args = {x.desc(), values.desc(), indices.desc()}; }
  const tgc_arg_desc *data() const { return args.data(); }
  int32_t size() const { return static_cast<int32_t>(args.size()); }
};

//===----------------------------------------------------------------------===//
// The topk guard set, as the compiler would emit it
//===----------------------------------------------------------------------===//

enum TopkGuard : int32_t {
  XRank,
  XDtype,
  ValuesRank,
  ValuesDtype,
  IndicesRank,
  IndicesDtype,
  ValuesSize,
  IndicesSize,
  XMinSize,
  XContiguous,
  ValuesContiguous,
  IndicesContiguous,
  NumTopkGuards
};

const tgc_guard_value kS0[] = {{"s0", 0, 0}};
const tgc_guard_value kValuesSize[] = {{"values.size(0)", 1, 0}};
const tgc_guard_value kIndicesSize[] = {{"indices.size(0)", 2, 0}};

constexpr const char *kS0Reason =
    "required by tgc.topk (k = 10 <= size of dim 0) at model.py:12";

template <int32_t Dtype> const tgc_guard_set_info &topkInfo() {
  static const tgc_guard_info guards[] = {
      {"rank(x) == 1", "x is the 1-D input of tgc.topk at model.py:12", 0,
       nullptr},
      {Dtype == TGC_DTYPE_F32 ? "dtype(x) == f32" : "dtype(x) == f16",
       "specialized on the dtype of x at model.py:12", 0, nullptr},
      {"rank(values) == 1", "out= buffer of tgc.topk at model.py:12", 0,
       nullptr},
      {"dtype(values) == f32", "out= buffer of tgc.topk at model.py:12", 0,
       nullptr},
      {"rank(indices) == 1", "out= buffer of tgc.topk at model.py:12", 0,
       nullptr},
      {"dtype(indices) == i64", "out= buffer of tgc.topk at model.py:12", 0,
       nullptr},
      {"values.size(0) == 10",
       "required by the out= buffer of tgc.topk (k = 10) at model.py:12", 1,
       kValuesSize},
      {"indices.size(0) == 10",
       "required by the out= buffer of tgc.topk (k = 10) at model.py:12", 1,
       kIndicesSize},
      {"s0 >= 10", kS0Reason, 1, kS0},
      {"x.stride(0) == 1", "the compiled kernel reads x contiguously", 0,
       nullptr},
      {"values.stride(0) == 1",
       "the compiled kernel writes values "
       "contiguously",
       0, nullptr},
      {"indices.stride(0) == 1",
       "the compiled kernel writes indices "
       "contiguously",
       0, nullptr},
  };
  static_assert(sizeof(guards) / sizeof(guards[0]) == NumTopkGuards, "");
  static const tgc_guard_set_info info = {"topk_out", NumTopkGuards, guards};
  return info;
}

/// Calls of each guard function, to observe the order in which the cache
/// tries specializations.
std::atomic<int> topkGuardCalls[2];

template <int32_t Dtype>
int32_t topkGuard(const tgc_arg_desc *args, int32_t numArgs) {
  ++topkGuardCalls[Dtype == TGC_DTYPE_F32 ? 0 : 1];
  if (numArgs != 3 || args[0].rank != 1)
    return XRank;
  if (args[0].dtype != Dtype)
    return XDtype;
  if (args[1].rank != 1)
    return ValuesRank;
  if (args[1].dtype != TGC_DTYPE_F32)
    return ValuesDtype;
  if (args[2].rank != 1)
    return IndicesRank;
  if (args[2].dtype != TGC_DTYPE_I64)
    return IndicesDtype;
  if (args[1].sizes[0] != 10)
    return ValuesSize;
  if (args[2].sizes[0] != 10)
    return IndicesSize;
  if (args[0].sizes[0] < 10)
    return XMinSize;
  if (args[0].strides[0] != 1)
    return XContiguous;
  if (args[1].strides[0] != 1)
    return ValuesContiguous;
  if (args[2].strides[0] != 1)
    return IndicesContiguous;
  return -1;
}

int entryTokens[4];

/// A stand-in compiler for topk_out: one specialization per x dtype, with s0
/// dynamic (range guard s0 >= 10); inputs that neither accepts (s0 < 10,
/// where topk's k is out of range, or odd buffers) are compile errors.
/// Records every request.
struct TopkCompiler {
  std::vector<std::string> reasons;
  std::vector<std::vector<GuardFailure>> failures;

  RecompileCallback callback() {
    return [this](const CompileRequest &request) {
      reasons.push_back(request.reason);
      failures.push_back(request.failures);
      DispatchEntry f32 = {topkGuard<TGC_DTYPE_F32>, &topkInfo<TGC_DTYPE_F32>(),
                           &entryTokens[0], nullptr};
      DispatchEntry f16 = {topkGuard<TGC_DTYPE_F16>, &topkInfo<TGC_DTYPE_F16>(),
                           &entryTokens[1], nullptr};
      for (const DispatchEntry &entry : {f32, f16})
        if (entry.guard(request.args, request.numArgs) == -1)
          return CompileResult::success(entry);
      return CompileResult::failure("topk_out: no specialization in this "
                                    "test accepts these arguments");
    };
  }
};

//===----------------------------------------------------------------------===//
// Static-shape specializations: one per size of x, s0 == 100 + I
//===----------------------------------------------------------------------===//

constexpr int kMaxStaticSizes = 16;
constexpr const char *kStaticReason = "static shapes (dynamic=False) at m.py:3";

template <int I>
int32_t staticSizeGuard(const tgc_arg_desc *args, int32_t numArgs) {
  if (numArgs != 1 || args[0].rank != 1)
    return 0;
  if (args[0].sizes[0] != 100 + I)
    return 1;
  return -1;
}

template <int... I>
std::vector<tgc_guard_fn> makeStaticGuards(std::integer_sequence<int, I...>) {
  return {staticSizeGuard<I>...};
}

struct StaticSizeCompiler {
  std::vector<tgc_guard_fn> guards =
      makeStaticGuards(std::make_integer_sequence<int, kMaxStaticSizes>());
  std::vector<std::string> texts;
  std::vector<std::array<tgc_guard_info, 2>> guardInfos;
  std::vector<tgc_guard_set_info> infos;
  std::vector<std::string> reasons;
  int calls = 0;

  StaticSizeCompiler() {
    texts.reserve(kMaxStaticSizes);
    guardInfos.resize(kMaxStaticSizes);
    infos.resize(kMaxStaticSizes);
    for (int i = 0; i < kMaxStaticSizes; ++i) {
      texts.push_back("s0 == " + std::to_string(100 + i));
      guardInfos[i] = {{{"rank(x) == 1", "x is 1-D at m.py:3", 0, nullptr},
                        {texts[i].c_str(), kStaticReason, 1, kS0}}};
      infos[i] = {"f", 2, guardInfos[i].data()};
    }
  }

  RecompileCallback callback() {
    return [this](const CompileRequest &request) {
      ++calls;
      reasons.push_back(request.reason);
      int64_t index = request.args[0].sizes[0] - 100;
      if (index < 0 || index >= kMaxStaticSizes)
        return CompileResult::failure("no such size in this test");
      return CompileResult::success(
          {guards[index], &infos[index], &entryTokens[index % 4], nullptr});
    };
  }
};

struct XCall {
  Tensor x;
  tgc_arg_desc desc;
  explicit XCall(int64_t s0) : x(Tensor::contiguous({s0})), desc(x.desc()) {}
};

//===----------------------------------------------------------------------===//
// Fixture: captured logs
//===----------------------------------------------------------------------===//

class DispatchCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    setLogSink([this](const std::string &line) { logs.push_back(line); });
    setLogCategories(0);
  }
  void TearDown() override {
    setLogSink(nullptr);
    setLogCategories(0);
  }

  size_t countLogs(std::string_view needle) const {
    return std::count_if(logs.begin(), logs.end(), [&](const std::string &l) {
      return l.find(needle) != std::string::npos;
    });
  }

  std::vector<std::string> logs;
};

//===----------------------------------------------------------------------===//
// Hits and misses
//===----------------------------------------------------------------------===//

TEST_F(DispatchCacheTest, DynamicSizeCompilesOnceThenHits) {
  TopkCompiler compiler;
  DispatchCache cache("topk_out", compiler.callback());
  for (int64_t s0 = 100; s0 < 200; ++s0) {
    TopkCall call(s0);
    DispatchResult result = cache.dispatch(call.data(), call.size());
    EXPECT_EQ(result.status,
              s0 == 100 ? DispatchStatus::Compiled : DispatchStatus::Hit)
        << "s0 = " << s0;
    EXPECT_EQ(result.entry, &entryTokens[0]);
    EXPECT_EQ(result.entryId, 0);
  }
  ASSERT_EQ(compiler.reasons.size(), 1u);
  EXPECT_EQ(compiler.reasons[0], "compiling topk_out (first call)");
  EXPECT_TRUE(compiler.failures[0].empty());
  DispatchStats stats = cache.stats();
  EXPECT_EQ(stats.hits, 99);
  EXPECT_EQ(stats.misses, 1);
  EXPECT_EQ(stats.compiles, 1);
  EXPECT_EQ(stats.recompiles, 0);
  EXPECT_TRUE(stats.recompileReasons.empty());
}

/// Compiles topk_out for s0 = 100, then dispatches `call` and returns the
/// recompile reason (and checks that exactly `guard` of entry 0 failed).
std::string recompileReasonFor(const TopkCall &call, int32_t guard) {
  TopkCompiler compiler;
  DispatchCache cache("topk_out", compiler.callback());
  TopkCall first(100);
  EXPECT_EQ(cache.dispatch(first.data(), first.size()).status,
            DispatchStatus::Compiled);
  // The test compiler cannot compile most of these calls: only the reason
  // matters here.
  cache.dispatch(call.data(), call.size());
  if (compiler.reasons.size() != 2) {
    ADD_FAILURE() << "expected one recompile, got "
                  << compiler.reasons.size() - 1;
    return "";
  }
  EXPECT_EQ(compiler.failures[1].size(), 1u);
  if (!compiler.failures[1].empty()) {
    EXPECT_EQ(compiler.failures[1][0].entry, 0);
    EXPECT_EQ(compiler.failures[1][0].guard, guard);
  }
  EXPECT_EQ(cache.stats().recompileReasons,
            std::vector<std::string>{compiler.reasons[1]});
  return compiler.reasons[1];
}

TEST_F(DispatchCacheTest, TooSmallInputFailsRangeGuard) {
  EXPECT_EQ(recompileReasonFor(TopkCall(7), XMinSize),
            std::string("recompiling topk_out: guard 8 failed: s0 >= 10 (") +
                kS0Reason + "): s0 = 7");
}

TEST_F(DispatchCacheTest, WrongDtypeFailsDtypeGuard) {
  EXPECT_EQ(recompileReasonFor(TopkCall(100, TGC_DTYPE_F16), XDtype),
            "recompiling topk_out: guard 1 failed: dtype(x) == f32 "
            "(specialized on the dtype of x at model.py:12)");
}

TEST_F(DispatchCacheTest, WrongOutBufferSizeFailsSizeGuard) {
  TopkCall call(100);
  call.values = Tensor::contiguous({5});
  call.update();
  EXPECT_EQ(recompileReasonFor(call, ValuesSize),
            "recompiling topk_out: guard 6 failed: values.size(0) == 10 "
            "(required by the out= buffer of tgc.topk (k = 10) at "
            "model.py:12): values.size(0) = 5");
}

TEST_F(DispatchCacheTest, NonContiguousInputFailsContiguityGuard) {
  TopkCall call(100);
  call.x.strides = {2};
  call.update();
  EXPECT_EQ(recompileReasonFor(call, XContiguous),
            "recompiling topk_out: guard 9 failed: x.stride(0) == 1 (the "
            "compiled kernel reads x contiguously)");
}

TEST_F(DispatchCacheTest, MostRecentlyHitSpecializationIsTriedFirst) {
  TopkCompiler compiler;
  DispatchCache cache("topk_out", compiler.callback());
  TopkCall f32(100), f16(100, TGC_DTYPE_F16);
  EXPECT_EQ(cache.dispatch(f32.data(), 3).status, DispatchStatus::Compiled);
  EXPECT_EQ(cache.dispatch(f16.data(), 3).status, DispatchStatus::Compiled);
  // The f16 reason names the f32 specialization's failure.
  EXPECT_EQ(compiler.reasons[1],
            "recompiling topk_out: guard 1 failed: dtype(x) == f32 "
            "(specialized on the dtype of x at model.py:12)");
  EXPECT_EQ(cache.stats().mruOrder, (std::vector<int32_t>{1, 0}));

  // Alternating: each call tries the other specialization first, fails,
  // then hits and moves its own to the front.
  for (int i = 0; i < 10; ++i) {
    const TopkCall &call = i % 2 ? f16 : f32;
    topkGuardCalls[0] = topkGuardCalls[1] = 0;
    DispatchResult result = cache.dispatch(call.data(), 3);
    EXPECT_EQ(result.status, DispatchStatus::Hit);
    EXPECT_EQ(result.entryId, i % 2 ? 1 : 0);
    EXPECT_EQ(topkGuardCalls[0], 1);
    EXPECT_EQ(topkGuardCalls[1], 1);
    EXPECT_EQ(cache.stats().mruOrder.front(), result.entryId);
  }
  // Repeating the last one: only its guard runs.
  topkGuardCalls[0] = topkGuardCalls[1] = 0;
  EXPECT_EQ(cache.dispatch(f16.data(), 3).entryId, 1);
  EXPECT_EQ(topkGuardCalls[0], 0);
  EXPECT_EQ(topkGuardCalls[1], 1);

  DispatchStats stats = cache.stats();
  EXPECT_EQ(stats.entryHits, (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(stats.hits, 11);
  EXPECT_EQ(stats.compiles, 2);
  EXPECT_EQ(stats.recompiles, 1);
}

TEST_F(DispatchCacheTest, ReasonCountsOtherFailedSpecializations) {
  TopkCompiler compiler;
  DispatchCache cache("topk_out", compiler.callback());
  TopkCall f32(100), f16(100, TGC_DTYPE_F16), f16Small(3, TGC_DTYPE_F16);
  cache.dispatch(f32.data(), 3);
  cache.dispatch(f16.data(), 3);
  cache.dispatch(f16Small.data(), 3);
  ASSERT_EQ(compiler.reasons.size(), 3u);
  EXPECT_EQ(compiler.reasons[2],
            std::string("recompiling topk_out: guard 8 failed: s0 >= 10 (") +
                kS0Reason + "): s0 = 3; 1 other specialization also failed");
  ASSERT_EQ(compiler.failures[2].size(), 2u);
  EXPECT_EQ(compiler.failures[2][0].entry, 1); // MRU first
  EXPECT_EQ(compiler.failures[2][0].guard, XMinSize);
  EXPECT_EQ(compiler.failures[2][1].entry, 0);
  EXPECT_EQ(compiler.failures[2][1].guard, XDtype);
}

//===----------------------------------------------------------------------===//
// Recompile limit and stances
//===----------------------------------------------------------------------===//

TEST_F(DispatchCacheTest, ErrorStanceStopsAtTheLimit) {
  StaticSizeCompiler compiler;
  DispatchCache cache("f", compiler.callback(), nullptr, /*limit=*/2,
                      Stance::Error);
  for (int64_t s0 : {100, 101, 102}) {
    XCall call(s0);
    EXPECT_EQ(cache.dispatch(&call.desc, 1).status, DispatchStatus::Compiled);
  }
  XCall over(103);
  DispatchResult result = cache.dispatch(&over.desc, 1);
  ASSERT_EQ(result.status, DispatchStatus::Error);
  std::string expected =
      std::string("f: recompile limit (2) reached; last: guard 1 failed: "
                  "s0 == 102 (") +
      kStaticReason + "): s0 = 103; 2 other specializations also failed";
  EXPECT_EQ(result.error, expected);
  EXPECT_EQ(cache.lastError(), expected);
  EXPECT_EQ(compiler.calls, 3); // the first compile is not a recompile
  // Cached specializations still hit.
  XCall old(100);
  EXPECT_EQ(cache.dispatch(&old.desc, 1).status, DispatchStatus::Hit);

  DispatchStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 3);
  EXPECT_EQ(stats.recompiles, 2);
  EXPECT_EQ(stats.errors, 1);
  EXPECT_EQ(stats.misses, 4);
  EXPECT_EQ(stats.recompileReasons.size(), 2u);

  // Changing the stance later applies to the next miss.
  cache.setStance(Stance::Continue);
  EXPECT_EQ(cache.dispatch(&over.desc, 1).status, DispatchStatus::Compiled);
}

TEST_F(DispatchCacheTest, FallbackStanceLogsEachDistinctReasonOnce) {
  StaticSizeCompiler compiler;
  int reference = 0;
  int fallbackCalls = 0;
  FallbackCallback onFallback = [&](const FallbackRequest &request) {
    ++fallbackCalls;
    EXPECT_EQ(request.function, "f");
    EXPECT_EQ(request.numArgs, 1);
    return static_cast<void *>(&reference);
  };
  DispatchCache cache("f", compiler.callback(), onFallback, /*limit=*/1,
                      Stance::Fallback);
  XCall a(100), b(101), c(102), d(103);
  EXPECT_EQ(cache.dispatch(&a.desc, 1).status, DispatchStatus::Compiled);
  EXPECT_EQ(cache.dispatch(&b.desc, 1).status, DispatchStatus::Compiled);
  EXPECT_TRUE(logs.empty()); // recompiles are not logged by default

  for (const XCall *call : {&c, &c, &d, &c}) {
    DispatchResult result = cache.dispatch(&call->desc, 1);
    EXPECT_EQ(result.status, DispatchStatus::Fallback);
    EXPECT_EQ(result.entry, &reference);
  }
  EXPECT_EQ(fallbackCalls, 4);
  EXPECT_EQ(compiler.calls, 2);
  ASSERT_EQ(logs.size(), 2u); // s0 = 102 and s0 = 103, each once
  EXPECT_EQ(logs[0],
            std::string("[tgc] f: recompile limit (1) reached, running the "
                        "reference path: guard 1 failed: s0 == 101 (") +
                kStaticReason +
                "): s0 = 102; 1 other specialization also "
                "failed");
  EXPECT_NE(logs[1].find("s0 = 103"), std::string::npos);

  EXPECT_EQ(cache.dispatch(&a.desc, 1).status, DispatchStatus::Hit);
  DispatchStats stats = cache.stats();
  EXPECT_EQ(stats.fallbacks, 4);
  EXPECT_EQ(stats.errors, 0);
  EXPECT_EQ(stats.hits, 1);
}

TEST_F(DispatchCacheTest, FallbackStanceWithoutCallbackStillFallsBack) {
  StaticSizeCompiler compiler;
  DispatchCache cache("f", compiler.callback(), nullptr, /*limit=*/0,
                      Stance::Fallback);
  XCall a(100), b(101);
  EXPECT_EQ(cache.dispatch(&a.desc, 1).status, DispatchStatus::Compiled);
  DispatchResult result = cache.dispatch(&b.desc, 1);
  EXPECT_EQ(result.status, DispatchStatus::Fallback);
  EXPECT_EQ(result.entry, nullptr);
  EXPECT_EQ(countLogs("recompile limit (0) reached, running the reference"),
            1u);
}

TEST_F(DispatchCacheTest, ContinueStanceKeepsCompilingAndLogsOnce) {
  StaticSizeCompiler compiler;
  DispatchCache cache("f", compiler.callback(), nullptr, /*limit=*/1,
                      Stance::Continue);
  for (int64_t s0 = 100; s0 < 106; ++s0) {
    XCall call(s0);
    EXPECT_EQ(cache.dispatch(&call.desc, 1).status, DispatchStatus::Compiled);
  }
  EXPECT_EQ(compiler.calls, 6);
  EXPECT_EQ(countLogs("[tgc] f: recompile limit (1) reached, compiling "
                      "anyway (stance continue): guard 1 failed: s0 == 101"),
            1u);
  EXPECT_EQ(logs.size(), 1u);
  DispatchStats stats = cache.stats();
  EXPECT_EQ(stats.recompiles, 5);
  EXPECT_EQ(stats.compiles, 6);
  EXPECT_EQ(stats.recompileReasons.size(), 5u);
  EXPECT_EQ(stats.mruOrder, (std::vector<int32_t>{5, 4, 3, 2, 1, 0}));
}

TEST_F(DispatchCacheTest, DefaultLimitIsEight) {
  StaticSizeCompiler compiler;
  DispatchCache cache("f", compiler.callback());
  EXPECT_EQ(cache.recompileLimit(), 8);
  EXPECT_EQ(cache.stance(), Stance::Error);
  for (int64_t s0 = 100; s0 < 109; ++s0) {
    XCall call(s0);
    EXPECT_EQ(cache.dispatch(&call.desc, 1).status, DispatchStatus::Compiled);
  }
  XCall over(109);
  DispatchResult result = cache.dispatch(&over.desc, 1);
  EXPECT_EQ(result.status, DispatchStatus::Error);
  EXPECT_EQ(
      std::string(result.error).rfind("f: recompile limit (8) reached", 0), 0u);
}

//===----------------------------------------------------------------------===//
// Compile errors and invalid calls
//===----------------------------------------------------------------------===//

TEST_F(DispatchCacheTest, CompileErrorIsReportedAndRetried) {
  int calls = 0;
  DispatchCache cache("f", [&](const CompileRequest &request) {
    ++calls;
    EXPECT_FALSE(request.isRecompile);
    return CompileResult::failure("unsupported op tgc.foo at m.py:4");
  });
  XCall call(100);
  DispatchResult result = cache.dispatch(&call.desc, 1);
  ASSERT_EQ(result.status, DispatchStatus::Error);
  EXPECT_STREQ(result.error, "f: compile failed: unsupported op tgc.foo at "
                             "m.py:4");
  EXPECT_EQ(cache.dispatch(&call.desc, 1).status, DispatchStatus::Error);
  EXPECT_EQ(calls, 2);
  DispatchStats stats = cache.stats();
  EXPECT_EQ(stats.compileErrors, 2);
  EXPECT_EQ(stats.compiles, 0);
  EXPECT_TRUE(stats.mruOrder.empty());
}

TEST_F(DispatchCacheTest, SpecializationRejectingItsOwnInputsIsAnError) {
  StaticSizeCompiler compiler;
  DispatchCache cache("f", [&](const CompileRequest &) {
    // A broken compiler: a specialization for s0 == 100, asked for 105.
    return CompileResult::success(
        {compiler.guards[0], &compiler.infos[0], &entryTokens[0], nullptr});
  });
  XCall call(105);
  DispatchResult result = cache.dispatch(&call.desc, 1);
  ASSERT_EQ(result.status, DispatchStatus::Error);
  EXPECT_EQ(std::string(result.error),
            std::string("f: compile failed: the new specialization rejects "
                        "the arguments it was compiled for: guard 1 failed: "
                        "s0 == 100 (") +
                kStaticReason + "): s0 = 105");
  EXPECT_TRUE(cache.stats().mruOrder.empty());
}

TEST_F(DispatchCacheTest, InvalidArgumentsAreAnError) {
  StaticSizeCompiler compiler;
  DispatchCache cache("f", compiler.callback());
  DispatchResult result = cache.dispatch(nullptr, 1);
  ASSERT_EQ(result.status, DispatchStatus::Error);
  EXPECT_STREQ(result.error, "f: invalid call: args is NULL with num_args 1");
  XCall call(100);
  result = cache.dispatch(&call.desc, -1);
  ASSERT_EQ(result.status, DispatchStatus::Error);
  EXPECT_STREQ(result.error, "f: invalid call: num_args is -1");
  EXPECT_EQ(compiler.calls, 0);
}

//===----------------------------------------------------------------------===//
// Messages read descriptors safely
//===----------------------------------------------------------------------===//

TEST_F(DispatchCacheTest, GuardValuesOutOfRangePrintQuestionMark) {
  Tensor x = Tensor::contiguous({7});
  tgc_arg_desc args[2] = {x.desc(), scalarArg(42)};
  auto value = [&](tgc_guard_value v) { return formatGuardValue(v, args, 2); };
  EXPECT_EQ(value({"s0", 0, 0}), "s0 = 7");
  EXPECT_EQ(value({"k", 1, -1}), "k = 42");
  EXPECT_EQ(value({"a", 2, 0}), "a = ?");  // no argument 2
  EXPECT_EQ(value({"b", -1, 0}), "b = ?"); // negative argument
  EXPECT_EQ(value({"c", 0, 1}), "c = ?");  // x has rank 1
  EXPECT_EQ(value({"d", 0, -1}), "d = ?"); // x is no scalar
  EXPECT_EQ(value({"e", 1, 0}), "e = ?");  // a scalar has no dims
  EXPECT_EQ(value({"f", 0, -2}), "f = ?");
  EXPECT_EQ(value({nullptr, 0, 0}), "<unnamed> = 7");
  tgc_arg_desc noSizes = x.desc();
  noSizes.sizes = nullptr;
  EXPECT_EQ(formatGuardValue({"g", 0, 0}, &noSizes, 1), "g = ?");
  EXPECT_EQ(formatGuardValue({"h", 0, 0}, nullptr, 0), "h = ?");
}

TEST_F(DispatchCacheTest, BadMetadataThroughTheCachePrintsQuestionMark) {
  static const tgc_guard_value badValues[] = {{"s0", 0, 0}, {"s9", 5, 0}};
  static const tgc_guard_info guards[] = {
      {"s0 == 100 and s9 == 3", "hand-made bad metadata", 2, badValues}};
  static const tgc_guard_set_info info = {"f", 1, guards};
  std::vector<std::string> reasons;
  DispatchCache cache("f", [&](const CompileRequest &request) {
    reasons.push_back(request.reason);
    return CompileResult::success({request.args[0].sizes[0] == 100
                                       ? staticSizeGuard<0>
                                       : staticSizeGuard<1>,
                                   &info, nullptr, nullptr});
  });
  XCall a(100), b(101);
  cache.dispatch(&a.desc, 1);
  cache.dispatch(&b.desc, 1);
  ASSERT_EQ(reasons.size(), 2u);
  // staticSizeGuard returns 1 but the metadata has one guard.
  EXPECT_EQ(reasons[1], "recompiling f: guard 1 failed (no metadata for this "
                        "guard)");
  EXPECT_EQ(describeGuardFailure(&info, 0, &b.desc, 1),
            "guard 0 failed: s0 == 100 and s9 == 3 (hand-made bad "
            "metadata): s0 = 101, s9 = ?");
  EXPECT_EQ(describeGuardFailure(nullptr, 0, &b.desc, 1),
            "guard 0 failed (no metadata for this guard)");
  EXPECT_EQ(describeGuardFailure(&info, -3, &b.desc, 1),
            "guard -3 failed (not a guard index: the guard function is "
            "broken)");
}

//===----------------------------------------------------------------------===//
// Logging
//===----------------------------------------------------------------------===//

TEST_F(DispatchCacheTest, ParseLogSpec) {
  std::vector<std::string> unknown;
  EXPECT_EQ(parseLogSpec(""), 0u);
  EXPECT_EQ(parseLogSpec("recompiles"), uint32_t(LogRecompiles));
  EXPECT_EQ(parseLogSpec("guards"), uint32_t(LogGuards));
  EXPECT_EQ(parseLogSpec(" recompiles , guards "), uint32_t(LogAll));
  EXPECT_EQ(parseLogSpec("all"), uint32_t(LogAll));
  EXPECT_EQ(parseLogSpec("+all"), uint32_t(LogAll));
  EXPECT_EQ(parseLogSpec("+guards,,"), uint32_t(LogGuards));
  EXPECT_EQ(parseLogSpec("recompiles,dynamo,Guards", &unknown),
            uint32_t(LogRecompiles));
  EXPECT_EQ(unknown, (std::vector<std::string>{"dynamo", "Guards"}));
}

TEST_F(DispatchCacheTest, ReloadReadsTheEnvironment) {
  ASSERT_EQ(setenv("TGC_LOGS", "recompiles,bogus", 1), 0);
  EXPECT_EQ(reloadLogConfigFromEnv(), uint32_t(LogRecompiles));
  EXPECT_EQ(logCategories(), uint32_t(LogRecompiles));
  EXPECT_EQ(logs, (std::vector<std::string>{
                      "[tgc] TGC_LOGS: unknown log category 'bogus' ignored "
                      "(known: recompiles, guards, all)"}));
  ASSERT_EQ(setenv("TGC_LOGS", "+all", 1), 0);
  EXPECT_EQ(tgc_reload_logs_from_env(), uint32_t(LogAll));
  ASSERT_EQ(unsetenv("TGC_LOGS"), 0);
  EXPECT_EQ(reloadLogConfigFromEnv(), 0u);
  EXPECT_FALSE(isLogEnabled(LogRecompiles));
}

TEST_F(DispatchCacheTest, LogsRecompilesAndGuardsWhenEnabled) {
  setLogCategories(LogAll);
  TopkCompiler compiler;
  DispatchCache cache("topk_out", compiler.callback());
  TopkCall big(100), small(7);
  cache.dispatch(big.data(), 3);
  cache.dispatch(big.data(), 3); // a hit logs nothing
  ASSERT_EQ(logs.size(), 2u + NumTopkGuards);
  EXPECT_EQ(logs[0], "[tgc] compiling topk_out (first call)");
  EXPECT_EQ(logs[1], "[tgc] guards of topk_out, specialization 0 (12 guards):");
  EXPECT_EQ(logs[2], "[tgc]   [0] rank(x) == 1  (x is the 1-D input of "
                     "tgc.topk at model.py:12)");
  EXPECT_EQ(logs[2 + XMinSize],
            std::string("[tgc]   [8] s0 >= 10  (") + kS0Reason + ")");

  logs.clear();
  setLogCategories(LogRecompiles);
  cache.dispatch(small.data(), 3);
  EXPECT_EQ(logs, (std::vector<std::string>{
                      std::string("[tgc] recompiling topk_out: guard 8 "
                                  "failed: s0 >= 10 (") +
                      kS0Reason + "): s0 = 7"}));
}

TEST_F(DispatchCacheTest, LogsNothingWhenDisabled) {
  TopkCompiler compiler;
  DispatchCache cache("topk_out", compiler.callback());
  TopkCall big(100), small(7);
  cache.dispatch(big.data(), 3);
  cache.dispatch(small.data(), 3);
  EXPECT_EQ(compiler.reasons.size(), 2u);
  EXPECT_TRUE(logs.empty());
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

TEST_F(DispatchCacheTest, ConcurrentDispatchCompilesEachSpecializationOnce) {
  TopkCompiler compiler;
  DispatchCache cache("topk_out", compiler.callback());
  constexpr int kThreads = 4, kCalls = 5000;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      TopkCall f32(100 + t), f16(100 + t, TGC_DTYPE_F16);
      for (int i = 0; i < kCalls; ++i) {
        const TopkCall &call = (i + t) % 3 ? f32 : f16;
        DispatchResult result = cache.dispatch(call.data(), 3);
        if (!result.hasEntry() ||
            result.entry != &entryTokens[&call == &f32 ? 0 : 1])
          ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  DispatchStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 2);
  EXPECT_EQ(stats.hits, kThreads * kCalls - 2);
  EXPECT_EQ(stats.entryHits[0] + stats.entryHits[1], stats.hits);
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

TEST_F(DispatchCacheTest, CApiRoundTripFromC99) {
  char message[256];
  EXPECT_EQ(tgc_test_c_api_round_trip(message, sizeof message), 0) << message;
}

struct CCompilerState {
  int calls = 0;
  std::string reason;
  std::vector<GuardFailure> failures;
};

int32_t compileTopkFromC(void *user, const char *function,
                         const tgc_arg_desc *args, int32_t numArgs,
                         const tgc_guard_failure *failures, int32_t numFailures,
                         const char *reason, tgc_dispatch_entry *out,
                         const char **error) {
  auto *state = static_cast<CCompilerState *>(user);
  ++state->calls;
  state->reason = reason;
  state->failures.assign(failures, failures + numFailures);
  if (std::string(function) != "topk_out" || numArgs != 3) {
    *error = "unexpected call";
    return 1;
  }
  if (args[1].sizes[0] != 10) {
    *error = "values must hold k = 10 elements";
    return 1;
  }
  if (args[0].dtype == TGC_DTYPE_F16)
    *out = {topkGuard<TGC_DTYPE_F16>, &topkInfo<TGC_DTYPE_F16>(),
            &entryTokens[1], state};
  else
    *out = {topkGuard<TGC_DTYPE_F32>, &topkInfo<TGC_DTYPE_F32>(),
            &entryTokens[0], state};
  return 0;
}

TEST_F(DispatchCacheTest, CApiFromCpp) {
  CCompilerState state;
  tgc_dispatch_cache *cache =
      tgc_dispatch_cache_create("topk_out", compileTopkFromC, nullptr, &state,
                                TGC_DEFAULT_RECOMPILE_LIMIT, TGC_STANCE_ERROR);
  ASSERT_NE(cache, nullptr);
  TopkCall f32(100), f16(100, TGC_DTYPE_F16), badValues(100);
  badValues.values = Tensor::contiguous({5});
  badValues.update();

  tgc_dispatch_result result;
  EXPECT_EQ(tgc_dispatch_cache_dispatch(cache, f32.data(), 3, &result),
            TGC_DISPATCH_COMPILED);
  EXPECT_EQ(result.user_data, &state);
  EXPECT_EQ(tgc_dispatch_cache_dispatch(cache, f32.data(), 3, &result),
            TGC_DISPATCH_HIT);
  EXPECT_EQ(result.entry, &entryTokens[0]);
  EXPECT_EQ(result.entry_id, 0);

  EXPECT_EQ(tgc_dispatch_cache_dispatch(cache, f16.data(), 3, &result),
            TGC_DISPATCH_COMPILED);
  EXPECT_EQ(result.entry, &entryTokens[1]);
  EXPECT_EQ(result.entry_id, 1);
  EXPECT_EQ(state.reason, "recompiling topk_out: guard 1 failed: dtype(x) == "
                          "f32 (specialized on the dtype of x at model.py:12)");
  ASSERT_EQ(state.failures.size(), 1u);
  EXPECT_EQ(state.failures[0].entry, 0);
  EXPECT_EQ(state.failures[0].guard, XDtype);

  EXPECT_EQ(tgc_dispatch_cache_dispatch(cache, badValues.data(), 3, &result),
            TGC_DISPATCH_ERROR);
  EXPECT_EQ(result.entry, nullptr);
  EXPECT_STREQ(tgc_dispatch_cache_last_error(cache),
               "topk_out: compile failed: values must hold k = 10 elements");
  EXPECT_STREQ(tgc_dispatch_cache_last_error(nullptr),
               "topk_out: compile failed: values must hold k = 10 elements");
  EXPECT_EQ(state.failures.size(), 2u);

  tgc_dispatch_stats stats;
  ASSERT_EQ(tgc_dispatch_cache_get_stats(cache, &stats), 0);
  EXPECT_EQ(stats.hits, 1);
  EXPECT_EQ(stats.misses, 3);
  EXPECT_EQ(stats.compiles, 2);
  EXPECT_EQ(stats.recompiles, 2);
  EXPECT_EQ(stats.compile_errors, 1);
  EXPECT_EQ(stats.errors, 1);
  EXPECT_EQ(stats.num_entries, 2);
  EXPECT_EQ(stats.num_recompile_reasons, 2);
  EXPECT_EQ(tgc_dispatch_cache_entry_hits(cache, 0), 1);
  EXPECT_EQ(tgc_dispatch_cache_entry_hits(cache, 1), 0);

  char reason[512];
  EXPECT_EQ(
      tgc_dispatch_cache_recompile_reason(cache, 1, reason, sizeof reason),
      static_cast<int64_t>(state.reason.size()));
  EXPECT_EQ(std::string(reason), state.reason);
  EXPECT_EQ(
      tgc_dispatch_cache_recompile_reason(cache, 2, reason, sizeof reason), -1);

  EXPECT_EQ(tgc_dispatch_cache_get_stats(nullptr, &stats), -1);
  EXPECT_EQ(tgc_dispatch_cache_dispatch(nullptr, f32.data(), 3, &result),
            TGC_DISPATCH_ERROR);
  EXPECT_EQ(result.status, TGC_DISPATCH_ERROR);
  // Another cache's error is not this cache's.
  EXPECT_STREQ(tgc_dispatch_cache_last_error(cache), "");
  tgc_dispatch_cache_destroy(cache);
}

TEST_F(DispatchCacheTest, CApiLogCallback) {
  std::vector<std::string> captured;
  tgc_set_log_callback(
      [](void *user, const char *line) {
        static_cast<std::vector<std::string> *>(user)->push_back(line);
      },
      &captured);
  EXPECT_EQ(tgc_set_logs("recompiles,nope"), -1);
  EXPECT_EQ(tgc_log_categories(), uint32_t(TGC_LOG_RECOMPILES));
  EXPECT_EQ(tgc_set_logs("all"), 0);
  EXPECT_EQ(tgc_log_categories(), uint32_t(TGC_LOG_ALL));
  tgc_set_log_callback(nullptr, nullptr);
  EXPECT_EQ(captured,
            (std::vector<std::string>{"[tgc] tgc_set_logs: unknown log "
                                      "category 'nope' ignored (known: "
                                      "recompiles, guards, all)"}));
}

} // namespace
