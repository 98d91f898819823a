//===- ShapeFunctionsTest.cpp - symbolic shape functions of tgc ops -------===//
//
// Runs the tgc ops' inferSymbolicShapes in program order over small parsed
// functions whose dynamic argument sizes are symbols s0, s1, ... (in
// argument order, range [2, inf] unless given), and checks the result shapes
// and the constraints required.
//
//===----------------------------------------------------------------------===//

#include "tgc/Analysis/ShapeInference.h"
#include "tgc/Dialect/Tgc/IR/ShapeRules.h"
#include "tgc/Dialect/Tgc/IR/TgcOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <limits>

using namespace mlir;
using namespace mlir::tgc;

namespace {

class ShapeFunctionsTest : public ::testing::Test {
protected:
  ShapeFunctionsTest() {
    context.loadDialect<TgcDialect, sym::TgcSymDialect, func::FuncDialect,
                        arith::ArithDialect, tensor::TensorDialect>();
  }

  /// Parses `source` (one func.func), makes a symbol of every dynamic
  /// argument size (`ranges` overrides [2, inf] by symbol index) and runs
  /// the shape functions. Failure when one fails; its diagnostic is kept in
  /// `diagnostics`.
  LogicalResult run(StringRef source,
                    ArrayRef<std::pair<unsigned, SizeRange>> ranges = {}) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module) {
      ADD_FAILURE() << "parse error: " << diagnostics;
      return failure();
    }
    auto fn = *module->getOps<func::FuncOp>().begin();
    for (BlockArgument arg : fn.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      SymShape shape;
      for (auto [d, size] : llvm::enumerate(type.getShape())) {
        if (!ShapedType::isDynamic(size)) {
          shape.push_back(env.constant(size));
          continue;
        }
        unsigned index = env.getNumSymbols();
        SizeRange range{2, std::nullopt};
        for (auto [i, r] : ranges)
          if (i == index)
            range = r;
        SymbolInfo info;
        info.name = "s" + std::to_string(index);
        info.kind = SymbolKind::Input;
        info.range = range;
        info.hint = 7; // never looked at by shape functions
        info.arg = arg.getArgNumber();
        info.dim = d;
        shape.push_back(env.addSymbol(info));
      }
      infer.setShape(arg, shape);
    }
    WalkResult walk = fn.walk([&](SymbolicShapeOpInterface op) {
      infer.setCurrentOp(op);
      return failed(op.inferSymbolicShapes(infer)) ? WalkResult::interrupt()
                                                   : WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  /// The first op named `name` in the function.
  Operation *find(StringRef name) {
    Operation *found = nullptr;
    module->walk([&](Operation *op) {
      if (!found && op->getName().getStringRef() == name)
        found = op;
    });
    EXPECT_TRUE(found) << "no " << name.str();
    return found;
  }

  /// "[s0, 10]": the symbolic shape of result `i` of the first `name` op.
  std::string shape(StringRef name, unsigned i = 0) {
    Operation *op = find(name);
    if (!op)
      return "<none>";
    Value v = op->getResult(i);
    if (!infer.hasShape(v))
      return "<unset>";
    std::string s = "[";
    llvm::interleave(
        infer.getShape(v), [&](AffineExpr e) { s += env.str(e); },
        [&] { s += ", "; });
    return s + "]";
  }

  /// The constraints required, in order, as text.
  std::vector<std::string> constraints() {
    std::vector<std::string> out;
    for (const ShapeInferenceContext::Required &r : infer.getRequired())
      out.push_back(env.str(r.constraint));
    return out;
  }

  /// The reasons of the constraints required, in order.
  std::vector<std::string> reasons() {
    std::vector<std::string> out;
    for (const ShapeInferenceContext::Required &r : infer.getRequired())
      out.push_back(r.constraint.reason);
    return out;
  }

  /// Value of `e` when symbol 0 is `s0` (others 0; Min/Max are computed).
  std::optional<int64_t> at(AffineExpr e, int64_t s0) {
    SmallVector<int64_t> values(env.getNumSymbols(), 0);
    values[0] = s0;
    return env.evaluate(e, values);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  ShapeEnv env{&context};
  ShapeInferenceContext infer{env};
  std::string diagnostics;
};

using Strings = std::vector<std::string>;

//===----------------------------------------------------------------------===//
// Seed 000: out= variants with a varying input size
//===----------------------------------------------------------------------===//

TEST_F(ShapeFunctionsTest, TopkOutNeedsOnlyARangeGuard) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?xf32>, %v: tensor<10xf32>, %i: tensor<10xi64>) {
      %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
      tgc.write_out %values into %v : tensor<10xf32> into tensor<10xf32>
      tgc.write_out %indices into %i : tensor<10xi64> into tensor<10xi64>
      return
    })mlir")));
  EXPECT_EQ(shape("tgc.topk", 0), "[10]");
  EXPECT_EQ(shape("tgc.topk", 1), "[10]");
  EXPECT_EQ(constraints(), Strings{"s0 >= 10"});
  EXPECT_EQ(reasons(), Strings{"tgc.topk needs k (10) <= size of dim 0"});
}

TEST_F(ShapeFunctionsTest, TopkOtherDimAndDynamicOut) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x?xf32>, %v: tensor<?x3xf32>) {
      %values, %indices = tgc.topk %x k = 3 dim = 1 : tensor<?x?xf32> -> tensor<?x3xf32>, tensor<?x3xi64>
      tgc.write_out %values into %v : tensor<?x3xf32> into tensor<?x3xf32>
      return
    })mlir")));
  EXPECT_EQ(shape("tgc.topk", 0), "[s0, 3]");
  EXPECT_EQ(constraints(), (Strings{"s1 >= 3", "s2 == s0"}));
}

TEST_F(ShapeFunctionsTest, TopkImpossibleForTheRangeFails) {
  EXPECT_TRUE(failed(run(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<10xf32> {
      %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
      return %values : tensor<10xf32>
    })mlir",
                         {{0, SizeRange{2, 5}}})));
  EXPECT_NE(diagnostics.find("tgc.topk needs k (10) <= size of dim 0"),
            std::string::npos)
      << diagnostics;
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, TopkOfAScalar) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %values, %indices = tgc.topk %x k = 1 dim = 0 : tensor<f32> -> tensor<f32>, tensor<i64>
      return %values : tensor<f32>
    })mlir")));
  EXPECT_EQ(shape("tgc.topk"), "[]");
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, BmmOutRelatesBatchSizes) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%a: tensor<?x3x4xf32>, %b: tensor<?x4x5xf32>, %o: tensor<?x3x5xf32>) {
      %c = tgc.bmm %a, %b : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
      tgc.write_out %c into %o : tensor<?x3x5xf32> into tensor<?x3x5xf32>
      return
    })mlir")));
  EXPECT_EQ(shape("tgc.bmm"), "[s0, 3, 5]");
  EXPECT_EQ(constraints(), (Strings{"s1 == s0", "s2 == s0"}));
  EXPECT_EQ(reasons().front(), "tgc.bmm batch sizes must be equal");
}

TEST_F(ShapeFunctionsTest, BmmContraction) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%a: tensor<2x3x?xf32>, %b: tensor<2x?x5xf32>) -> tensor<2x3x5xf32> {
      %c = tgc.bmm %a, %b : tensor<2x3x?xf32>, tensor<2x?x5xf32> -> tensor<2x3x5xf32>
      return %c : tensor<2x3x5xf32>
    })mlir")));
  EXPECT_EQ(constraints(), Strings{"s1 == s0"});
  EXPECT_EQ(reasons(), Strings{"tgc.bmm contraction sizes must be equal"});
}

TEST_F(ShapeFunctionsTest, CholeskyBatch) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%a: tensor<?x4x4xf64>, %o: tensor<?x4x4xf64>) {
      %l = tgc.cholesky %a : tensor<?x4x4xf64>
      tgc.write_out %l into %o : tensor<?x4x4xf64> into tensor<?x4x4xf64>
      return
    })mlir")));
  EXPECT_EQ(shape("tgc.cholesky"), "[s0, 4, 4]");
  EXPECT_EQ(constraints(), Strings{"s1 == s0"});
}

TEST_F(ShapeFunctionsTest, CholeskyNeedsSquareMatrices) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%a: tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
      %l = tgc.cholesky %a : tensor<?x?x?xf64>
      return %l : tensor<?x?x?xf64>
    })mlir")));
  EXPECT_EQ(shape("tgc.cholesky"), "[s0, s1, s1]");
  EXPECT_EQ(constraints(), Strings{"s2 == s1"});
  EXPECT_EQ(reasons(), Strings{"tgc.cholesky needs square matrices"});
}

TEST_F(ShapeFunctionsTest, NormOverTheDynamicDim) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x8xf32>, %o: tensor<8xf32>) -> tensor<1x8xf32> {
      %n = tgc.norm %x dims [0] : tensor<?x8xf32> -> tensor<8xf32>
      %k = tgc.norm %x dims [0] keepdim : tensor<?x8xf32> -> tensor<1x8xf32>
      tgc.write_out %n into %o : tensor<8xf32> into tensor<8xf32>
      return %k : tensor<1x8xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.norm"), "[8]");
  EXPECT_TRUE(constraints().empty());
  Operation *keep = find("func.return")->getOperand(0).getDefiningOp();
  ASSERT_TRUE(keep);
  EXPECT_EQ(env.str(infer.getDim(keep->getResult(0), 0)), "1");
}

TEST_F(ShapeFunctionsTest, MaxOverTheDynamicDim) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<4x?xf32>, %v: tensor<4xf32>, %i: tensor<4xi64>) {
      %values, %indices = tgc.max %x dim 1 : tensor<4x?xf32> -> tensor<4xf32>, tensor<4xi64>
      tgc.write_out %values into %v : tensor<4xf32> into tensor<4xf32>
      tgc.write_out %indices into %i : tensor<4xi64> into tensor<4xi64>
      return
    })mlir")));
  EXPECT_EQ(shape("tgc.max", 0), "[4]");
  EXPECT_EQ(shape("tgc.max", 1), "[4]");
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, ReductionsKeepOtherDims) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x?x3xf32>) -> (tensor<?xf32>, tensor<?x1x3xi64>) {
      %s = tgc.sum %x dims [1, 2] : tensor<?x?x3xf32> -> tensor<?xf32>
      %a = tgc.argmax %x dim 1 keepdim : tensor<?x?x3xf32> -> tensor<?x1x3xi64>
      return %s, %a : tensor<?xf32>, tensor<?x1x3xi64>
    })mlir")));
  EXPECT_EQ(shape("tgc.sum"), "[s0]");
  EXPECT_EQ(shape("tgc.argmax"), "[s0, 1, 3]");
}

//===----------------------------------------------------------------------===//
// Broadcasting and linear algebra
//===----------------------------------------------------------------------===//

TEST_F(ShapeFunctionsTest, BroadcastAgainstStatic) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> tensor<?x4xf32> {
      %z = tgc.add %x, %y : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
      return %z : tensor<?x4xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.add"), "[s0, 4]");
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, BroadcastTwoSymbolsIsEquality) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>, %c: tensor<?x1xi1>) -> tensor<?x?xf32> {
      %z = tgc.mul %x, %y : tensor<?xf32>
      %w = tgc.where %c, %z, %x : tensor<?x1xi1>, tensor<?xf32>, tensor<?xf32> -> tensor<?x?xf32>
      return %w : tensor<?x?xf32>
    })mlir")));
  // Sizes are >= 2 (0 and 1 are specialized), so they broadcast only when
  // equal.
  EXPECT_EQ(shape("tgc.mul"), "[s0]");
  EXPECT_EQ(shape("tgc.where"), "[s2, s0]");
  EXPECT_EQ(constraints(), Strings{"s1 == s0"});
  EXPECT_EQ(reasons(), Strings{"tgc.mul operands must broadcast in dimension "
                               "0 of the result"});
}

TEST_F(ShapeFunctionsTest, MatmulContraction) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
      %c = tgc.matmul %a, %b : tensor<?x?xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
      return %c : tensor<?x8xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.matmul"), "[s0, 8]");
  EXPECT_EQ(constraints(), Strings{"s2 == s1"});
  EXPECT_EQ(reasons(), Strings{"tgc.matmul contraction sizes must be equal"});
}

TEST_F(ShapeFunctionsTest, MatmulRankRules) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%a: tensor<?x3x4xf32>, %b: tensor<4x5xf32>, %v: tensor<4xf32>, %w: tensor<?x1x4x6xf32>) -> (tensor<?x3x5xf32>, tensor<?x3xf32>, tensor<?x?x3x6xf32>) {
      %c = tgc.matmul %a, %b : tensor<?x3x4xf32>, tensor<4x5xf32> -> tensor<?x3x5xf32>
      %d = tgc.matmul %a, %v : tensor<?x3x4xf32>, tensor<4xf32> -> tensor<?x3xf32>
      %e = tgc.matmul %a, %w : tensor<?x3x4xf32>, tensor<?x1x4x6xf32> -> tensor<?x?x3x6xf32>
      return %c, %d, %e : tensor<?x3x5xf32>, tensor<?x3xf32>, tensor<?x?x3x6xf32>
    })mlir")));
  SmallVector<Operation *> ops;
  module->walk([&](MatmulOp op) { ops.push_back(op); });
  ASSERT_EQ(ops.size(), 3u);
  auto str = [&](Operation *op) {
    std::string s;
    for (AffineExpr e : infer.getShape(op->getResult(0)))
      s += env.str(e) + ";";
    return s;
  };
  EXPECT_EQ(str(ops[0]), "s0;3;5;");
  EXPECT_EQ(str(ops[1]), "s0;3;");
  // Batch [s1, 1] against [s0]: s1 leads, 1 stretches to s0.
  EXPECT_EQ(str(ops[2]), "s1;s0;3;6;");
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, LinearAndEmbedding) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x?xf32>, %w: tensor<16x32xf32>, %b: tensor<?xf32>, %t: tensor<100x8xf32>, %i: tensor<?x5xi64>) -> (tensor<?x16xf32>, tensor<?x5x8xf32>) {
      %y = tgc.linear %x, %w, %b : tensor<?x?xf32>, tensor<16x32xf32>, tensor<?xf32> -> tensor<?x16xf32>
      %e = tgc.embedding %t, %i : tensor<100x8xf32>, tensor<?x5xi64> -> tensor<?x5x8xf32>
      return %y, %e : tensor<?x16xf32>, tensor<?x5x8xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.linear"), "[s0, 16]");
  EXPECT_EQ(shape("tgc.embedding"), "[s3, 5, 8]");
  EXPECT_EQ(constraints(), (Strings{"s1 == 32", "s2 == 16"}));
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

TEST_F(ShapeFunctionsTest, ReshapeFlatten) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x4xf32>) -> tensor<?xf32> {
      %f = tgc.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
      return %f : tensor<?xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.reshape"), "[s0 * 4]");
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, ReshapeSplitNeedsDivisibility) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<?x4xf32> {
      %r = tgc.reshape %x : tensor<?xf32> -> tensor<?x4xf32>
      return %r : tensor<?x4xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.reshape"), "[s0 floordiv 4, 4]");
  EXPECT_EQ(constraints(), Strings{"s0 mod 4 == 0"});
}

TEST_F(ShapeFunctionsTest, ReshapeWithSizeOperands) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x?xf32>) -> tensor<?xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
      %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
      %n = arith.muli %d0, %d1 : index
      %r = tgc.reshape %x [%n] : tensor<?x?xf32> -> tensor<?xf32>
      return %r : tensor<?xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.reshape"), "[s0 * s1]");
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, ReshapeToStaticSpecializes) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x4xf32>) -> tensor<12xf32> {
      %r = tgc.reshape %x : tensor<?x4xf32> -> tensor<12xf32>
      return %r : tensor<12xf32>
    })mlir")));
  EXPECT_EQ(constraints(), Strings{"s0 * 4 == 12"});
  EXPECT_EQ(reasons(), Strings{"tgc.reshape preserves the element count"});
}

TEST_F(ShapeFunctionsTest, SliceOfASymbolicDim) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
      %a = tgc.slice %x dim = 0 start = 2 end = 9223372036854775807 step = 1 : tensor<?x8xf32> -> tensor<?x8xf32>
      %b = tgc.slice %x dim = 0 start = 0 end = 9223372036854775807 step = 1 : tensor<?x8xf32> -> tensor<?x8xf32>
      %c = tgc.slice %x dim = 0 start = 0 end = 4 step = 1 : tensor<?x8xf32> -> tensor<?x8xf32>
      %d = tgc.slice %x dim = 1 start = 1 end = -1 step = 2 : tensor<?x8xf32> -> tensor<?x3xf32>
      return %a, %b, %c : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
    })mlir")));
  SmallVector<Operation *> ops;
  module->walk([&](SliceOp op) { ops.push_back(op); });
  ASSERT_EQ(ops.size(), 4u);
  auto dim = [&](Operation *op, int64_t d) {
    return env.str(infer.getDim(op->getResult(0), d));
  };
  EXPECT_EQ(dim(ops[0], 0), "s0 - 2"); // s0 >= 2: max(s0 - 2, 0) folds
  EXPECT_EQ(dim(ops[1], 0), "s0");
  EXPECT_EQ(dim(ops[2], 0), "min(s0, 4)");
  EXPECT_EQ(dim(ops[3], 1), "3");
  EXPECT_TRUE(constraints().empty());
}

// The symbolic slice length agrees with the static rule for every size,
// including sizes 0 and 1. (A fresh ShapeEnv per slice: every query of a
// ShapeEnv involves all of its Min/Max symbols.)
TEST_F(ShapeFunctionsTest, SliceLengthIsExact) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      return %x : tensor<?xf32>
    })mlir")));
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  Value x = find("func.func")->getRegion(0).front().getArgument(0);
  OpBuilder b(&context);
  b.setInsertionPoint(find("func.return"));
  for (int64_t start : {-9, -4, -1, 0, 1, 3, 6}) {
    for (int64_t end : {int64_t(-7), int64_t(-3), int64_t(-1), int64_t(0),
                        int64_t(2), int64_t(5), int64_t(9), kEnd}) {
      for (int64_t step : {1, 2, 3}) {
        ShapeEnv sizes(&context);
        ShapeInferenceContext local(sizes);
        SymbolInfo info;
        info.name = "n";
        info.range = SizeRange{0, std::nullopt};
        local.setShape(x, {sizes.addSymbol(info)});
        auto slice = SliceOp::create(b, b.getUnknownLoc(), x.getType(), x, 0,
                                     start, end, step);
        local.setCurrentOp(slice);
        ASSERT_TRUE(succeeded(slice.inferSymbolicShapes(local)));
        EXPECT_TRUE(local.getRequired().empty());
        AffineExpr length = local.getDim(slice.getResult(), 0);
        for (int64_t n = 0; n <= 12; ++n) {
          SmallVector<int64_t> values(sizes.getNumSymbols(), 0);
          values[0] = n;
          EXPECT_EQ(sizes.evaluate(length, values),
                    sliceSize(n, start, end, step))
              << "x[" << start << ":" << end << ":" << step << "] of size " << n
              << ": " << sizes.str(length);
        }
        slice->erase();
      }
    }
  }
}

TEST_F(ShapeFunctionsTest, Concat) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>, %c: tensor<4x?xf32>, %d: tensor<2x?xf32>) -> (tensor<?x8xf32>, tensor<6x?xf32>) {
      %x = tgc.concat %a, %b, %a dim = 0 : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
      %y = tgc.concat %c, %d dim = 0 : (tensor<4x?xf32>, tensor<2x?xf32>) -> tensor<6x?xf32>
      return %x, %y : tensor<?x8xf32>, tensor<6x?xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.concat"), "[s0 * 2 + s1, 8]");
  EXPECT_EQ(constraints(), Strings{"s3 == s2"});
  EXPECT_EQ(reasons(), Strings{"tgc.concat: dim 1 of input 1 must equal "
                               "input 0's"});
}

TEST_F(ShapeFunctionsTest, PermutePadSqueezeUnsqueeze) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<1x?x3xf32>) -> (tensor<3x1x?xf32>, tensor<1x?x5xf32>, tensor<?x3xf32>, tensor<1x?x1x3xf32>) {
      %p = tgc.permute %x [2, 0, 1] : tensor<1x?x3xf32> -> tensor<3x1x?xf32>
      %q = tgc.pad %x low [0, 1, 0] high [0, 2, 2] value 0.0 : f32 : tensor<1x?x3xf32> -> tensor<1x?x5xf32>
      %s = tgc.squeeze %x dims [0] : tensor<1x?x3xf32> -> tensor<?x3xf32>
      %u = tgc.unsqueeze %x dim = 2 : tensor<1x?x3xf32> -> tensor<1x?x1x3xf32>
      return %p, %q, %s, %u : tensor<3x1x?xf32>, tensor<1x?x5xf32>, tensor<?x3xf32>, tensor<1x?x1x3xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.permute"), "[3, 1, s0]");
  EXPECT_EQ(shape("tgc.pad"), "[1, s0 + 3, 5]");
  EXPECT_EQ(shape("tgc.squeeze"), "[s0, 3]");
  EXPECT_EQ(shape("tgc.unsqueeze"), "[1, s0, 1, 3]");
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, Expand) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<1x?xf32>, %y: tensor<?x1xf32>, %n: index) -> (tensor<?x?xf32>, tensor<2x6x4xf32>) {
      %a = tgc.expand %x [%n] : tensor<1x?xf32> -> tensor<?x?xf32>
      %b = tgc.expand %y : tensor<?x1xf32> -> tensor<2x6x4xf32>
      return %a, %b : tensor<?x?xf32>, tensor<2x6x4xf32>
    })mlir")));
  // %n is an argument: an unbacked size.
  EXPECT_EQ(shape("tgc.expand"), "[u0, s0]");
  EXPECT_EQ(constraints(), Strings{"s1 == 6"});
}

TEST_F(ShapeFunctionsTest, GatherAndIndexSelect) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x8xf32>, %i: tensor<?x2xi64>, %j: tensor<?xi64>) -> (tensor<?x2xf32>, tensor<?x8xf32>) {
      %g = tgc.gather %x, %i dim = 1 : tensor<?x8xf32>, tensor<?x2xi64> -> tensor<?x2xf32>
      %s = tgc.index_select %x, %j dim = 0 : tensor<?x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
      return %g, %s : tensor<?x2xf32>, tensor<?x8xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.gather"), "[s1, 2]");
  EXPECT_EQ(shape("tgc.index_select"), "[s2, 8]");
  EXPECT_EQ(constraints(), Strings{"s1 <= s0"});
}

//===----------------------------------------------------------------------===//
// Neural-network operators
//===----------------------------------------------------------------------===//

TEST_F(ShapeFunctionsTest, Conv2dSymbolicHeight) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<1x3x?x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x?x16xf32> {
      %y = tgc.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x3x?x32xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x?x16xf32>
      return %y : tensor<1x16x?x16xf32>
    })mlir")));
  Operation *conv = find("tgc.conv2d");
  AffineExpr h = infer.getDim(conv->getResult(0), 2);
  EXPECT_EQ(env.str(h), "(s0 - 1) floordiv 2 + 1");
  EXPECT_EQ(env.str(infer.getDim(conv->getResult(0), 3)), "16");
  EXPECT_EQ(env.str(infer.getDim(conv->getResult(0), 1)), "16");
  std::string error;
  for (int64_t n = 2; n < 40; ++n)
    EXPECT_EQ(at(h, n), windowOutputSize(n, 3, 2, 1, 1, false, error));
  EXPECT_TRUE(constraints().empty());
}

TEST_F(ShapeFunctionsTest, Conv2dWindowMustFit) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x4x?x?xf32>, %w: tensor<8x2x5x5xf32>) -> tensor<?x8x?x?xf32> {
      %y = tgc.conv2d %x, %w stride [1, 1] padding [0, 1] dilation [1, 1] groups = 2 : tensor<?x4x?x?xf32>, tensor<8x2x5x5xf32> -> tensor<?x8x?x?xf32>
      return %y : tensor<?x8x?x?xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.conv2d"), "[s0, 8, s1 - 4, s2 - 2]");
  EXPECT_EQ(constraints(), (Strings{"s1 >= 5", "s2 + 2 >= 5"}));
}

// Ceil mode with PyTorch's last-window correction, for every size.
TEST_F(ShapeFunctionsTest, PoolingCeilModeIsExact) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<1x2x?x8xf32>) -> tensor<1x2x?x4xf32> {
      %y = tgc.max_pool2d %x kernel [3, 2] stride [2, 2] padding [1, 0] dilation [1, 1] ceil_mode : tensor<1x2x?x8xf32> -> tensor<1x2x?x4xf32>
      %z = tgc.avg_pool2d %x kernel [2, 2] stride [3, 2] padding [1, 0] ceil_mode : tensor<1x2x?x8xf32> -> tensor<1x2x?x4xf32>
      return %y : tensor<1x2x?x4xf32>
    })mlir",
                            {{0, SizeRange{1, std::nullopt}}})));
  std::string error;
  AffineExpr maxH = infer.getDim(find("tgc.max_pool2d")->getResult(0), 2);
  AffineExpr avgH = infer.getDim(find("tgc.avg_pool2d")->getResult(0), 2);
  for (int64_t n = 1; n < 40; ++n) {
    EXPECT_EQ(at(maxH, n), windowOutputSize(n, 3, 2, 1, 1, true, error))
        << "max_pool2d, H = " << n << ": " << env.str(maxH);
    EXPECT_EQ(at(avgH, n), windowOutputSize(n, 2, 3, 1, 1, true, error))
        << "avg_pool2d, H = " << n << ": " << env.str(avgH);
  }
  EXPECT_EQ(env.str(infer.getDim(find("tgc.max_pool2d")->getResult(0), 3)),
            "4");
}

TEST_F(ShapeFunctionsTest, NormalizationAndAttention) {
  ASSERT_TRUE(succeeded(run(R"mlir(
    func.func @f(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %q: tensor<2x?x?x64xf32>, %k: tensor<2x?x?x64xf32>, %m: tensor<?x?xi1>) -> (tensor<?x?xf32>, tensor<2x?x?x64xf32>) {
      %y = tgc.layer_norm %x weight(%w : tensor<?xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x?xf32>
      %o = tgc.scaled_dot_product_attention %q, %k, %k mask(%m : tensor<?x?xi1>) : tensor<2x?x?x64xf32>, tensor<2x?x?x64xf32>, tensor<2x?x?x64xf32> -> tensor<2x?x?x64xf32>
      return %y, %o : tensor<?x?xf32>, tensor<2x?x?x64xf32>
    })mlir")));
  EXPECT_EQ(shape("tgc.layer_norm"), "[s0, s1]");
  // heads of q and k broadcast (both >= 2: equal); mask [L, S] matches.
  EXPECT_EQ(shape("tgc.scaled_dot_product_attention"), "[2, s3, s4, 64]");
  EXPECT_EQ(constraints(),
            (Strings{"s2 == s1", "s5 == s3", "s7 == s4", "s8 == s6"}));
}

} // namespace
