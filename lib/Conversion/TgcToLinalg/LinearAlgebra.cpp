//===- LinearAlgebra.cpp - tgc to linalg: linear algebra ------------------===//
//
// matmul, bmm, linear and cholesky.
//
// Products accumulate in f32 for f16/bf16/f32 (f64 for f64; integers in
// their own type, wrapping) and round once. torch.matmul's rank rules: a
// 1-D operand gets a unit dimension (prepended on the left, appended on
// the right) that is removed from the result; 2-D x 2-D is linalg.matmul,
// 3-D x 3-D without broadcasting linalg.batch_matmul, everything else a
// linalg.generic whose batch dimensions broadcast (a static 1 stretches).
//
// cholesky is the Cholesky–Banachiewicz algorithm in scf loops over the
// batch, in f64 for f64 and f32 otherwise. Like LAPACK's potrf it reads
// the lower triangle (the upper one for `upper`, where the result is the
// transposed factor), and a pivot that is not positive (or NaN) stops the
// program with cf.assert.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"
#include "tgc/Transforms/Tf32.h"

#include "Utils.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Whether batch dims `a` and `b` are equal without broadcasting: both
/// static 1, or neither a static 1.
bool sameBatchSize(int64_t a, int64_t b) { return (a == 1) == (b == 1); }

struct MatmulLowering : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    Type element = lhsType.getElementType();
    Type accType = getAccumulatorType(element);
    bool lhsVector = lhsType.getRank() == 1;
    bool rhsVector = rhsType.getRank() == 1;
    if (lhsVector)
      lhs = expandUnitDims(rewriter, loc, lhs, {true, false});
    if (rhsVector)
      rhs = expandUnitDims(rewriter, loc, rhs, {false, true});
    lhsType = cast<RankedTensorType>(lhs.getType());
    rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t lhsRank = lhsType.getRank(), rhsRank = rhsType.getRank();

    Value product;
    if (lhsRank == 2 && rhsRank == 2) {
      SmallVector<int64_t> shape{lhsType.getDimSize(0), rhsType.getDimSize(1)};
      SmallVector<OpFoldResult> sizes{
          tensor::getMixedSize(rewriter, loc, lhs, 0),
          tensor::getMixedSize(rewriter, loc, rhs, 1)};
      auto outType = RankedTensorType::get(shape, accType);
      Value zero = createScalarConstant(rewriter, loc, accType, 0.0);
      Value init = createFilled(rewriter, loc, outType, sizes, zero);
      product = linalg::MatmulOp::create(rewriter, loc, TypeRange{outType},
                                         ValueRange{lhs, rhs}, init)
                    .getResult(0);
    } else if (lhsRank == 3 && rhsRank == 3 &&
               sameBatchSize(lhsType.getDimSize(0), rhsType.getDimSize(0))) {
      product = buildBatchMatmul(rewriter, loc, lhs, rhs, accType);
    } else {
      product = buildBroadcastBatchMatmul(rewriter, loc, lhs, rhs,
                                          /*transposeRhs=*/false, accType);
    }
    copyTf32Mark(op, product);
    Value result = convertTensor(rewriter, loc, product, element);
    int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
    SmallVector<bool> unit(rank, false);
    unit[rank - 2] = lhsVector;
    unit[rank - 1] = rhsVector;
    result = collapseUnitDims(rewriter, loc, result, unit);
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }

  /// linalg.batch_matmul of [b, n, k] x [b, k, m] into `accType`.
  static Value buildBatchMatmul(OpBuilder &b, Location loc, Value lhs,
                                Value rhs, Type accType) {
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    // The batch size from a static operand when there is one.
    bool batchFromRhs = lhsType.isDynamicDim(0) && !rhsType.isDynamicDim(0);
    SmallVector<int64_t> shape{batchFromRhs ? rhsType.getDimSize(0)
                                            : lhsType.getDimSize(0),
                               lhsType.getDimSize(1), rhsType.getDimSize(2)};
    SmallVector<OpFoldResult> sizes{
        tensor::getMixedSize(b, loc, batchFromRhs ? rhs : lhs, 0),
        tensor::getMixedSize(b, loc, lhs, 1),
        tensor::getMixedSize(b, loc, rhs, 2)};
    auto outType = RankedTensorType::get(shape, accType);
    Value zero = createScalarConstant(b, loc, accType, 0.0);
    Value init = createFilled(b, loc, outType, sizes, zero);
    return linalg::BatchMatmulOp::create(b, loc, TypeRange{outType},
                                         ValueRange{lhs, rhs}, init)
        .getResult(0);
  }
};

struct BmmLowering : OpRewritePattern<BmmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BmmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = op.getLhs().getType().getElementType();
    Value product = MatmulLowering::buildBatchMatmul(
        rewriter, loc, op.getLhs(), op.getRhs(), getAccumulatorType(element));
    copyTf32Mark(op, product);
    Value result = convertTensor(rewriter, loc, product, element);
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// Rows below which a linear's leading dims are collapsed into one.
constexpr int64_t kCollapseRowsBelow = 16;

/// Whether x W^T should run over x's leading dims collapsed into one: the
/// last leading dim, the rows of a tile, is static and below
/// kCollapseRowsBelow (attention's projections over a sequence-first [T,
/// B, C] have B rows: 1 or 2 rows per tile reread all of W per row), and
/// at most one leading dim is `?` (expanding one `?` into two is not
/// lowered by MLIR 22's expand-strided-metadata).
bool collapseLeadingDims(RankedTensorType inType) {
  int64_t leading = inType.getRank() - 1;
  if (leading < 2)
    return false;
  ArrayRef<int64_t> dims = inType.getShape().take_front(leading);
  int64_t rows = dims.back();
  return !ShapedType::isDynamic(rows) && rows < kCollapseRowsBelow &&
         llvm::count_if(dims, ShapedType::isDynamic) <= 1;
}

/// x W^T + b as one contraction over [..., out, in] (the leading dims of x
/// stay as they are, or collapse into one: collapseLeadingDims) and an
/// elementwise generic adding the bias in the accumulator type before the
/// single rounding.
struct LinearLowering : OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = op.getInput(), weight = op.getWeight();
    auto inType = cast<RankedTensorType>(input.getType());
    bool collapsed = collapseLeadingDims(inType);
    ReassociationIndices leadingDims =
        llvm::to_vector(llvm::seq<int64_t>(0, inType.getRank() - 1));
    SmallVector<ReassociationIndices> reassociation{leadingDims,
                                                    {inType.getRank() - 1}};
    // The result's sizes before the collapse, for the expand after it.
    SmallVector<OpFoldResult> resultSizes;
    if (collapsed) {
      resultSizes = getDims(rewriter, loc, input);
      resultSizes.back() = tensor::getMixedSize(rewriter, loc, weight, 0);
      input =
          tensor::CollapseShapeOp::create(rewriter, loc, input, reassociation);
      inType = cast<RankedTensorType>(input.getType());
    }
    auto weightType = cast<RankedTensorType>(weight.getType());
    Type element = inType.getElementType();
    Type accType = getAccumulatorType(element);
    int64_t leading = inType.getRank() - 1;
    // Loops: leading..., out, in.
    int64_t loops = leading + 2;
    AffineExpr o = getAffineDimExpr(leading, ctx);
    AffineExpr i = getAffineDimExpr(leading + 1, ctx);
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < leading; ++d) {
      inExprs.push_back(getAffineDimExpr(d, ctx));
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    inExprs.push_back(i);
    outExprs.push_back(o);
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, inExprs, ctx),
                                AffineMap::get(loops, 0, {o, i}, ctx),
                                AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<int64_t> shape(inType.getShape().drop_back());
    shape.push_back(weightType.getDimSize(0));
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, input);
    sizes.back() = tensor::getMixedSize(rewriter, loc, weight, 0);
    Value product = buildMulAddReduction(rewriter, loc, input, weight, shape,
                                         sizes, accType, maps);
    copyTf32Mark(op, product);
    Value result;
    if (Value bias = op.getBias()) {
      AffineMap biasMap =
          AffineMap::get(leading + 1, 0, getAffineDimExpr(leading, ctx));
      result = buildMapOverInput(
          rewriter, loc, product, bias, biasMap, element,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value bv = convertScalar(b, l, args[1], accType);
            return arith::AddFOp::create(b, l, args[0], bv);
          });
    } else {
      result = convertTensor(rewriter, loc, product, element);
    }
    if (collapsed)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(llvm::map_to_vector(resultSizes, staticSize),
                                element),
          result, reassociation, resultSizes);
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// L (lower) with A = L L^T for each matrix of the batch, computed in
/// `computeType`:
///   L[i][j] = (A[i][j] - sum_{k<j} L[i][k] L[j][k]) / L[j][j]   (j < i)
///   L[i][i] = sqrt(A[i][i] - sum_{k<i} L[i][k]^2)
/// reading A[j][i] instead of A[i][j] for `upper`.
struct CholeskyLowering : OpRewritePattern<CholeskyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CholeskyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type element = type.getElementType();
    Type computeType = element.isF64() ? element : rewriter.getF32Type();
    bool upper = op.getUpper();
    int64_t rank = type.getRank();
    int64_t batch = rank - 2;

    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, input);
    // The matrix size from a static dim when there is one.
    OpFoldResult nSize =
        type.isDynamicDim(rank - 1) ? sizes[rank - 2] : sizes[rank - 1];
    Value n = getValueOrCreateConstantIndexOp(rewriter, loc, nSize);
    Value zero = createScalarConstant(rewriter, loc, computeType, 0.0);
    Value factor =
        createFilled(rewriter, loc, type.clone(computeType), sizes, zero);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);

    SmallVector<Value> lbs(batch, c0), steps(batch, c1), ubs;
    for (int64_t d = 0; d < batch; ++d)
      ubs.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]));

    // Whether every pivot is positive: a rank-0 flag that the loops only
    // ever set to false, checked after them. The batch loops then share no
    // value but that flag, so their iterations may run at once (on the GPU,
    // a thread each), and a failed check is reported like a gather's, on
    // the host, instead of stopping inside a loop.
    Type i1 = rewriter.getI1Type();
    Value positiveDefinite = createFilled(
        rewriter, loc, RankedTensorType::get({}, i1), {},
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)));

    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{factor, positiveDefinite},
        [&](OpBuilder &b, Location l, ValueRange batchIvs,
            ValueRange iter) -> scf::ValueVector {
          auto at = [&](Value r, Value c) {
            SmallVector<Value> indices(batchIvs);
            indices.push_back(r);
            indices.push_back(c);
            return indices;
          };
          auto rows = scf::ForOp::create(
              b, l, c0, n, c1, iter,
              [&](OpBuilder &b, Location l, Value i, ValueRange rowIter) {
                Value iPlus1 = arith::AddIOp::create(b, l, i, c1);
                auto cols = scf::ForOp::create(
                    b, l, c0, iPlus1, c1, rowIter,
                    [&](OpBuilder &b, Location l, Value j, ValueRange colIter) {
                      Value lf = colIter[0], flag = colIter[1];
                      auto dot = scf::ForOp::create(
                          b, l, c0, j, c1, ValueRange{zero},
                          [&](OpBuilder &b, Location l, Value k,
                              ValueRange acc) {
                            Value lik =
                                tensor::ExtractOp::create(b, l, lf, at(i, k));
                            Value ljk =
                                tensor::ExtractOp::create(b, l, lf, at(j, k));
                            Value p = arith::MulFOp::create(b, l, lik, ljk);
                            scf::YieldOp::create(
                                b, l,
                                arith::AddFOp::create(b, l, acc[0], p)
                                    .getResult());
                          });
                      Value a = tensor::ExtractOp::create(
                          b, l, input, upper ? at(j, i) : at(i, j));
                      a = convertScalar(b, l, a, computeType);
                      Value rest =
                          arith::SubFOp::create(b, l, a, dot.getResult(0));
                      Value onDiagonal = arith::CmpIOp::create(
                          b, l, arith::CmpIPredicate::eq, i, j);
                      Value positive = arith::CmpFOp::create(
                          b, l, arith::CmpFPredicate::OGT, rest, zero);
                      Value offDiagonal = arith::XOrIOp::create(
                          b, l, onDiagonal,
                          arith::ConstantOp::create(b, l, b.getBoolAttr(true)));
                      Value ok =
                          arith::OrIOp::create(b, l, offDiagonal, positive);
                      Value failed = arith::XOrIOp::create(
                          b, l, ok,
                          arith::ConstantOp::create(b, l, b.getBoolAttr(true)));
                      auto mark = scf::IfOp::create(
                          b, l, failed,
                          [&](OpBuilder &b, Location l) {
                            Value no = arith::ConstantOp::create(
                                b, l, b.getBoolAttr(false));
                            scf::YieldOp::create(
                                b, l,
                                tensor::InsertOp::create(b, l, no, flag,
                                                         ValueRange{})
                                    .getResult());
                          },
                          [&](OpBuilder &b, Location l) {
                            scf::YieldOp::create(b, l, flag);
                          });
                      Value pivot =
                          tensor::ExtractOp::create(b, l, lf, at(j, j));
                      Value value = arith::SelectOp::create(
                          b, l, onDiagonal, math::SqrtOp::create(b, l, rest),
                          arith::DivFOp::create(b, l, rest, pivot));
                      Value updated =
                          tensor::InsertOp::create(b, l, value, lf, at(i, j));
                      scf::YieldOp::create(
                          b, l, ValueRange{updated, mark.getResult(0)});
                    });
                scf::YieldOp::create(b, l, cols.getResults());
              });
          return {rows.getResult(0), rows.getResult(1)};
        });
    for (scf::ForOp loop : nest.loops)
      loop->setAttr(kParallelLoopAttrName, rewriter.getUnitAttr());
    Value checked = tensor::ExtractOp::create(rewriter, loc, nest.results[1],
                                              ValueRange{});
    cf::AssertOp::create(rewriter, loc, checked,
                         "tgc.cholesky: the input is not positive-definite");

    Value result = convertTensor(rewriter, loc, nest.results[0], element);
    if (upper) {
      SmallVector<int64_t> permutation =
          llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(permutation[rank - 2], permutation[rank - 1]);
      SmallVector<OpFoldResult> transposedSizes =
          getDims(rewriter, loc, result);
      std::swap(transposedSizes[rank - 2], transposedSizes[rank - 1]);
      auto resultType = cast<RankedTensorType>(result.getType());
      SmallVector<int64_t> shape(resultType.getShape());
      std::swap(shape[rank - 2], shape[rank - 1]);
      Value init =
          createEmpty(rewriter, loc, resultType.clone(shape), transposedSizes);
      result =
          linalg::TransposeOp::create(rewriter, loc, result, init, permutation)
              .getResult()[0];
    }
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

} // namespace

void mlir::tgc::populateTgcLinearAlgebraToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, BmmLowering, LinearLowering, CholeskyLowering>(
      patterns.getContext());
}
