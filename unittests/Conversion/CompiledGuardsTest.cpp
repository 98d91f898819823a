//===- CompiledGuardsTest.cpp - native guard functions, end to end --------===//
//
// Compiles tgc functions through tgc-frontend-pipeline with lower-guards,
// JIT-compiles the guard functions, and checks them:
//  * through the runtime's DispatchCache: the seed-000 topk function called
//    with sizes 100..199 compiles exactly once;
//  * inputs that violate a constraint fail the guard that names it;
//  * soundness: on random sizes, the guard function accepts exactly the
//    inputs for which the program's own constraints (tgc_sym.constrain, the
//    argument binds and the symbol ranges, evaluated independently of the
//    guards) hold.
// Each test runs twice: guards as code, and from a table
// (tgc-lower-guards{table-min-guards=0}: every rank, dtype, device,
// contiguity and argument-size guard a record of tgc_guard_f.table).
//
//===----------------------------------------------------------------------===//

#include "tgc/Analysis/SymbolicIR.h"
#include "tgc/InitAllDialects.h"
#include "tgc/InitAllPasses.h"
#include "tgc/Runtime/DispatchCache.h"
#include "tgc/Runtime/tgc_runtime.h"
#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include "gtest/gtest.h"

#include <map>
#include <random>

using namespace mlir;
using namespace mlir::tgc;

namespace {

const char *kTopk = R"mlir(
func.func @topk_out(%x: tensor<?xf32> {tgc.example_shape = array<i64: 100>},
                    %v: tensor<10xf32>, %i: tensor<10xi64>) {
  %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64> loc("model.py":12:5)
  tgc.write_out %values into %v : tensor<10xf32> into tensor<10xf32>
  tgc.write_out %indices into %i : tensor<10xi64> into tensor<10xi64>
  return
}
)mlir";

const char *kBmm = R"mlir(
func.func @bmm_out(%a: tensor<?x3x4xf32> {tgc.example_shape = array<i64: 5, 3, 4>},
                   %b: tensor<?x4x5xf32> {tgc.example_shape = array<i64: 5, 4, 5>},
                   %c: tensor<?x3x5xf32> {tgc.example_shape = array<i64: 5, 3, 5>}) {
  %r = tgc.bmm %a, %b : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
  tgc.write_out %r into %c : tensor<?x3x5xf32> into tensor<?x3x5xf32>
  return
}
)mlir";

const char *kBroadcastReshape = R"mlir(
func.func @f(%x: tensor<?x?xf32> {tgc.example_shape = array<i64: 6, 4>},
             %y: tensor<?xf32> {tgc.example_shape = array<i64: 4>},
             %z: tensor<?x?xf32> {tgc.example_shape = array<i64: 3, 8>}) -> tensor<?xf32> {
  %s = tgc.add %x, %y : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %f = tgc.reshape %s : tensor<?x?xf32> -> tensor<?xf32>
  %g = tgc.reshape %z : tensor<?x?xf32> -> tensor<?xf32>
  %h = tgc.add %f, %g : tensor<?xf32>
  return %h : tensor<?xf32>
}
)mlir";

struct Compiled {
  std::unique_ptr<ExecutionEngine> engine;
  tgc_guard_fn guard = nullptr;
  const tgc_guard_set_info *info = nullptr;
};

/// The parameter: the guards a table can check are checked from one.
class CompiledGuardsTest : public ::testing::TestWithParam<bool> {
protected:
  static void SetUpTestSuite() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    registerAllTgcPasses();
  }

  CompiledGuardsTest() {
    DialectRegistry registry;
    registerAllTgcDialects(registry);
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(StringRef source) {
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(m);
    return m;
  }

  /// Runs `pipeline` (the passes of a builtin.module pass manager).
  LogicalResult run(ModuleOp m, StringRef pipeline) {
    PassManager pm(&ctx);
    if (failed(parsePassPipeline(pipeline, pm))) {
      ADD_FAILURE() << "bad pipeline " << pipeline.str();
      return failure();
    }
    return pm.run(m);
  }

  /// The program after shape inference: the oracle's source of truth.
  OwningOpRef<ModuleOp> analyzed(StringRef source, StringRef options = "") {
    OwningOpRef<ModuleOp> m = parse(source);
    std::string p = "func.func(tgc-symbolize-shapes{" + options.str() +
                    "},tgc-infer-shapes)";
    EXPECT_TRUE(succeeded(run(*m, p)));
    return m;
  }

  Compiled compile(StringRef source, StringRef fn, StringRef options = "") {
    return compile(source, fn, options, GetParam());
  }
  Compiled compile(StringRef source, StringRef fn, StringRef options,
                   bool table) {
    Compiled c;
    OwningOpRef<ModuleOp> m = parse(source);
    std::string p =
        "tgc-frontend-pipeline{" + options.str() +
        "},tgc-lower-guards{table-min-guards=" + (table ? "0" : "1000000") +
        "}";
    if (failed(run(*m, p)))
      return c;
    if (getenv("TGC_TEST_DUMP"))
      m->dump();
    // The table's loop is there exactly when asked for.
    EXPECT_EQ(static_cast<bool>(m->lookupSymbol("tgc_guard_.check_table")),
              table);
    // Only the guard functions run here: drop the tgc functions.
    for (auto f : llvm::make_early_inc_range(m->getOps<func::FuncOp>()))
      f.erase();
    // ExecutionEngineOptions::transformer is a function_ref: keep the
    // transformer alive until create() returns.
    std::function<llvm::Error(llvm::Module *)> transformer =
        makeOptimizingTransformer(2, 0, nullptr);
    ExecutionEngineOptions opts;
    opts.transformer = transformer;
    auto engine = ExecutionEngine::create(*m, opts);
    if (!engine) {
      ADD_FAILURE() << llvm::toString(engine.takeError());
      return c;
    }
    c.engine = std::move(*engine);
    auto guard = c.engine->lookup(("tgc_guard_" + fn).str());
    auto info = c.engine->lookup(("tgc_guard_info_" + fn).str());
    if (!guard || !info) {
      ADD_FAILURE() << "missing guard symbols: "
                    << (guard ? "" : llvm::toString(guard.takeError()))
                    << (info ? "" : llvm::toString(info.takeError()));
      return c;
    }
    c.guard = reinterpret_cast<tgc_guard_fn>(*guard);
    c.info = static_cast<const tgc_guard_set_info *>(*info);
    return c;
  }

  MLIRContext ctx;
};

/// Host tensors with descriptors.
struct Args {
  std::vector<std::vector<int64_t>> sizes, strides;
  std::vector<std::vector<char>> data;
  std::vector<tgc_arg_desc> descs;

  void add(std::vector<int64_t> shape, int32_t dtype, int64_t elemBytes) {
    std::vector<int64_t> st(shape.size());
    int64_t n = 1;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      st[d] = n;
      n *= shape[d];
    }
    sizes.push_back(shape);
    strides.push_back(st);
    data.emplace_back(std::max<int64_t>(n, 1) * elemBytes);
    tgc_arg_desc d = {};
    d.dtype = dtype;
    d.device_type = TGC_DEVICE_CPU;
    d.rank = shape.size();
    descs.push_back(d);
  }
  /// Fixes up the pointers (call after the last add).
  tgc_arg_desc *finish() {
    for (size_t i = 0; i < descs.size(); ++i) {
      descs[i].data = data[i].data();
      descs[i].sizes = sizes[i].data();
      descs[i].strides = strides[i].data();
    }
    return descs.data();
  }
};

Args topkArgs(int64_t n, int64_t outSize = 10) {
  Args a;
  a.add({n}, TGC_DTYPE_F32, 4);
  a.add({outSize}, TGC_DTYPE_F32, 4);
  a.add({outSize}, TGC_DTYPE_I64, 8);
  a.finish();
  return a;
}

int32_t indexOf(const tgc_guard_set_info *info, StringRef text) {
  for (int32_t i = 0; i < info->num_guards; ++i)
    if (text == info->guards[i].text)
      return i;
  return -2;
}

} // namespace

TEST_P(CompiledGuardsTest, TopkCompilesOnceForSizes100To199) {
  int compiles = 0;
  std::vector<Compiled> keep;
  ::tgc::runtime::DispatchCache cache(
      "topk_out", [&](const ::tgc::runtime::CompileRequest &) {
        ++compiles;
        keep.push_back(compile(kTopk, "topk_out"));
        Compiled &c = keep.back();
        if (!c.guard)
          return ::tgc::runtime::CompileResult::failure("compile failed");
        return ::tgc::runtime::CompileResult::success(
            {c.guard, c.info, reinterpret_cast<void *>(0x1), nullptr});
      });
  for (int64_t n = 100; n < 200; ++n) {
    Args a = topkArgs(n);
    ::tgc::runtime::DispatchResult r = cache.dispatch(a.descs.data(), 3);
    ASSERT_TRUE(r.hasEntry()) << "size " << n;
  }
  EXPECT_EQ(compiles, 1);
  ::tgc::runtime::DispatchStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 1);
  EXPECT_EQ(stats.hits, 99);
  EXPECT_EQ(stats.recompiles, 0);

  // Size 7 < k: the range guard fails, and the recompile says why.
  Args small = topkArgs(7);
  (void)cache.dispatch(small.descs.data(), 3);
  stats = cache.stats();
  ASSERT_EQ(stats.recompileReasons.size(), 1u);
  int32_t guardIndex = indexOf(keep.front().info, "s0 >= 10");
  ASSERT_GE(guardIndex, 0);
  EXPECT_EQ(stats.recompileReasons[0],
            "recompiling topk_out: guard " + std::to_string(guardIndex) +
                " failed: s0 >= 10 (tgc.topk needs k (10) <= size of "
                "dim 0 at model.py:12:5): s0 = 7");
}

TEST_P(CompiledGuardsTest, ViolationsFailTheGuardThatNamesThem) {
  Compiled c = compile(kTopk, "topk_out");
  ASSERT_TRUE(c.guard);
  auto failing = [&](Args &a, int32_t n = 3) -> std::string {
    int32_t i = c.guard(a.descs.data(), n);
    if (i < 0)
      return "pass";
    if (i >= c.info->num_guards)
      return "bad index";
    return c.info->guards[i].text;
  };
  Args ok = topkArgs(150);
  EXPECT_EQ(failing(ok), "pass");
  Args tooSmall = topkArgs(9);
  EXPECT_EQ(failing(tooSmall), "s0 >= 10");
  Args wrongOut = topkArgs(150, 11);
  EXPECT_EQ(failing(wrongOut), "arg1_dim0 == 10");
  Args wrongDtype = topkArgs(150);
  wrongDtype.descs[0].dtype = TGC_DTYPE_F64;
  EXPECT_EQ(failing(wrongDtype), "dtype(arg0) == f32");
  Args wrongRank = topkArgs(150);
  wrongRank.descs[0].rank = 2;
  EXPECT_EQ(failing(wrongRank), "rank(arg0) == 1");
  Args strided = topkArgs(150);
  strided.strides[0][0] = 2;
  EXPECT_EQ(failing(strided), "arg0 contiguous");
  Args aliased = topkArgs(150);
  aliased.descs[1].data = aliased.descs[0].data; // out buffer overlaps x
  EXPECT_EQ(failing(aliased), "arg1 does not alias arg0");
  Args gpu = topkArgs(150);
  gpu.descs[2].device_type = TGC_DEVICE_CUDA;
  EXPECT_EQ(failing(gpu), "device(arg2) == cpu");
  // Too few descriptors: a guard on the missing argument fails, nothing is
  // read out of bounds.
  Args few = topkArgs(150);
  EXPECT_EQ(failing(few, 2), "rank(arg2) == 1");
  // A garbage size (negative) fails instead of being trusted.
  Args negative = topkArgs(150);
  negative.sizes[0][0] = -5;
  EXPECT_NE(failing(negative), "pass");
}

TEST_P(CompiledGuardsTest, BmmRelationsAreTheOnlySizeRequirements) {
  Compiled c = compile(kBmm, "bmm_out", "duck-sizing=false");
  ASSERT_TRUE(c.guard);
  std::vector<std::string> texts;
  for (int32_t i = 0; i < c.info->num_guards; ++i)
    texts.push_back(c.info->guards[i].text);
  EXPECT_NE(llvm::find(texts, "s1 == s0"), texts.end());
  EXPECT_NE(llvm::find(texts, "s2 == s0"), texts.end());
  // Nothing pins the batch size to the example (5).
  for (const std::string &t : texts)
    EXPECT_EQ(t.find("s0 == 5"), std::string::npos) << t;
  for (int64_t batch : {2, 3, 17, 1000}) {
    Args a;
    a.add({batch, 3, 4}, TGC_DTYPE_F32, 4);
    a.add({batch, 4, 5}, TGC_DTYPE_F32, 4);
    a.add({batch, 3, 5}, TGC_DTYPE_F32, 4);
    a.finish();
    EXPECT_EQ(c.guard(a.descs.data(), 3), -1) << "batch " << batch;
  }
}

namespace {
/// The program's own requirements, evaluated on concrete sizes.
bool oracleAccepts(func::FuncOp func,
                   const std::vector<std::vector<int64_t>> &shapes) {
  ShapeEnv env(func.getContext());
  SymbolicIR ir(env);
  Block &entry = func.front();
  ir.addSymbolOps(entry);
  std::vector<int64_t> values(env.getNumSymbols(), 0);
  for (unsigned i = 0; i < env.getNumSymbols(); ++i) {
    const SymbolInfo &s = env.getSymbol(i);
    if (s.kind != SymbolKind::Input)
      continue;
    if (*s.arg >= static_cast<int64_t>(shapes.size()) ||
        *s.dim >= static_cast<int64_t>(shapes[*s.arg].size()))
      return false;
    int64_t v = shapes[*s.arg][*s.dim];
    if (!s.range.contains(v))
      return false;
    values[i] = v;
  }
  for (auto bind : entry.getOps<sym::BindOp>()) {
    auto arg = dyn_cast<BlockArgument>(bind.getTensor());
    if (!arg)
      continue;
    SmallVector<AffineExpr> exprs =
        ir.exprsOf(bind.getShape(), bind.getSizes());
    for (auto [d, e] : llvm::enumerate(exprs))
      if (env.evaluate(e, values) != shapes[arg.getArgNumber()][d])
        return false;
  }
  bool ok = true;
  func.walk([&](sym::ConstrainOp c) {
    SmallVector<AffineExpr> sides = ir.exprsOf(c.getMap(), c.getSizes());
    SizeConstraint sc{c.getKind(), sides[0], sides[1], c.getLoc(), ""};
    values.resize(env.getNumSymbols(), 0);
    ok &= env.evaluate(sc, values).value_or(false);
  });
  return ok;
}
} // namespace

TEST_P(CompiledGuardsTest, GuardsAcceptExactlyWhatTheConstraintsAllow) {
  struct Case {
    const char *source, *fn, *options;
    std::vector<std::vector<int64_t>> example;
  };
  Case cases[] = {
      {kTopk, "topk_out", "", {{100}, {10}, {10}}},
      {kBmm, "bmm_out", "duck-sizing=false", {{5, 3, 4}, {5, 4, 5}, {5, 3, 5}}},
      {kBmm, "bmm_out", "", {{5, 3, 4}, {5, 4, 5}, {5, 3, 5}}},
      {kBroadcastReshape, "f", "duck-sizing=false", {{6, 4}, {4}, {3, 8}}},
  };
  std::mt19937 rng(42);
  for (const Case &tc : cases) {
    Compiled c = compile(tc.source, tc.fn, tc.options);
    ASSERT_TRUE(c.guard) << tc.fn;
    OwningOpRef<ModuleOp> m = analyzed(tc.source, tc.options);
    auto func = *m->getOps<func::FuncOp>().begin();
    int accepted = 0, rejected = 0;
    for (int iter = 0; iter < 1500; ++iter) {
      // Sizes that were equal in the example move together (so that many
      // samples satisfy the relations), then one size may move alone (so
      // that every relation and bound is also violated).
      std::map<int64_t, int64_t> remap;
      for (auto &shape : tc.example)
        for (int64_t s : shape)
          if (!remap.count(s))
            remap[s] = rng() % 2 ? s : static_cast<int64_t>(rng() % 40);
      std::vector<std::vector<int64_t>> shapes = tc.example;
      for (auto &shape : shapes)
        for (int64_t &s : shape)
          s = remap[s];
      if (rng() % 3 == 0) {
        auto &shape = shapes[rng() % shapes.size()];
        shape[rng() % shape.size()] = rng() % 40;
      }
      Args a;
      bool topk = StringRef(tc.fn) == "topk_out";
      for (auto [k, shape] : llvm::enumerate(shapes)) {
        // topk's indices are i64: allocate 8-byte elements, or the buffer
        // would be shorter than its descriptor says.
        if (topk && k == 2)
          a.add(shape, TGC_DTYPE_I64, 8);
        else
          a.add(shape, TGC_DTYPE_F32, 4);
      }
      a.finish();
      bool guardOk = c.guard(a.descs.data(), a.descs.size()) == -1;
      bool oracleOk = oracleAccepts(func, shapes);
      ASSERT_EQ(guardOk, oracleOk)
          << tc.fn << " " << tc.options << " on sizes of arg 0: "
          << shapes[0][0];
      (guardOk ? accepted : rejected)++;
    }
    EXPECT_GT(accepted, 20) << tc.fn;
    EXPECT_GT(rejected, 20) << tc.fn;
  }
}

// A scalar tensor and a 3-d one on the second GPU (device guards with an
// index, contiguity of a rank-0 tensor).
const char *kScaled = R"mlir(
func.func @scaled(%s: tensor<f32>,
                  %x: tensor<?x4x5xf32> {tgc.example_shape = array<i64: 3, 4, 5>})
    -> tensor<?x4x5xf32> {
  %r = tgc.mul %x, %s : tensor<?x4x5xf32>, tensor<f32> -> tensor<?x4x5xf32>
  return %r : tensor<?x4x5xf32>
}
)mlir";

// The table's loop and the code fail the same first guard on descriptors
// of every kind of wrong: ranks, dtypes, device types and indices, sizes
// (negative, 0, 1, huge, off by one, products that overflow), strides,
// aliasing, missing arguments and a negative count.
TEST_P(CompiledGuardsTest, TableAndCodeFailTheSameGuard) {
  if (!GetParam())
    GTEST_SKIP() << "compares both lowerings once";
  struct Case {
    const char *source, *fn, *options;
    std::vector<std::vector<int64_t>> example;
    std::vector<int32_t> dtypes;
    int32_t deviceType = TGC_DEVICE_CPU, deviceIndex = 0;
  };
  Case cases[] = {
      {kTopk,
       "topk_out",
       "",
       {{100}, {10}, {10}},
       {TGC_DTYPE_F32, TGC_DTYPE_F32, TGC_DTYPE_I64}},
      {kBmm,
       "bmm_out",
       "duck-sizing=false",
       {{5, 3, 4}, {5, 4, 5}, {5, 3, 5}},
       {TGC_DTYPE_F32, TGC_DTYPE_F32, TGC_DTYPE_F32}},
      {kBroadcastReshape,
       "f",
       "default-policy=static",
       {{6, 4}, {4}, {3, 8}},
       {TGC_DTYPE_F32, TGC_DTYPE_F32, TGC_DTYPE_F32}},
      {kScaled,
       "scaled",
       "device=cuda:1",
       {{}, {3, 4, 5}},
       {TGC_DTYPE_F32, TGC_DTYPE_F32},
       TGC_DEVICE_CUDA,
       1},
  };
  std::mt19937 rng(7);
  for (const Case &tc : cases) {
    Compiled code = compile(tc.source, tc.fn, tc.options, false);
    Compiled table = compile(tc.source, tc.fn, tc.options, true);
    ASSERT_TRUE(code.guard && table.guard) << tc.fn;
    std::map<int32_t, int> failures;
    for (int iter = 0; iter < 3000; ++iter) {
      Args a;
      for (auto [k, shape] : llvm::enumerate(tc.example)) {
        std::vector<int64_t> s = shape;
        if (rng() % 4 == 0 && !s.empty())
          s[rng() % s.size()] += static_cast<int64_t>(rng() % 3) - 1;
        a.add(s, tc.dtypes[k], 8);
        a.descs.back().device_type = tc.deviceType;
        a.descs.back().device_index = tc.deviceIndex;
      }
      int32_t n = static_cast<int32_t>(a.descs.size());
      // (a dim of the first argument with one: the scalar has none)
      int32_t withDims = a.sizes[0].empty() ? 1 : 0;
      switch (rng() % 14) {
      case 0:
        a.descs[rng() % n].rank += rng() % 2 ? 1 : -1;
        break;
      case 1:
        a.descs[rng() % n].dtype = TGC_DTYPE_F64;
        break;
      case 2:
        a.descs[rng() % n].device_type = TGC_DEVICE_CUDA;
        break;
      case 3: {
        auto &s = a.sizes[withDims];
        s[rng() % s.size()] = rng() % 2 ? -3 : (int64_t(1) << 50);
        break;
      }
      case 4: {
        auto &st = a.strides[withDims];
        st[rng() % st.size()] += 1;
        break;
      }
      case 5:
        n = static_cast<int32_t>(rng() % n);
        break;
      case 6: { // empty, or a dim of one (its stride does not count)
        auto &s = a.sizes[withDims];
        s[rng() % s.size()] = rng() % 2;
        break;
      }
      case 7:
        a.descs[rng() % n].device_index = static_cast<int32_t>(rng() % 3);
        break;
      case 8:
        n = -1;
        break;
      case 9: // every size below 2^48, their product past 2^63
        for (int64_t &size : a.sizes[withDims])
          size = (int64_t(1) << 47) - 1;
        break;
      default:
        break;
      }
      a.finish();
      if (rng() % 10 == 0)
        a.descs[1].data = a.descs[0].data; // aliasing
      int32_t want = code.guard(a.descs.data(), n);
      ASSERT_EQ(table.guard(a.descs.data(), n), want)
          << tc.fn << " iteration " << iter;
      ++failures[want];
    }
    // Passes and several different guards failed.
    EXPECT_GT(failures[-1], 50) << tc.fn;
    EXPECT_GE(failures.size(), 5u) << tc.fn;
  }
}

INSTANTIATE_TEST_SUITE_P(GuardsAs, CompiledGuardsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "Table" : "Code";
                         });
