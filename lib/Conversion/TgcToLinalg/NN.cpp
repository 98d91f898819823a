//===- NN.cpp - tgc to linalg: neural-network operators -------------------===//
//
// softmax, log_softmax, layer_norm, rms_norm, scaled_dot_product_attention,
// conv2d, max_pool2d and avg_pool2d.
//
// Everything computes in the opmath type (f32 for f16/bf16) and rounds
// once. Semantics that PyTorch defines and that are easy to get wrong:
// * softmax subtracts the maximum over `dim`; a row with NaN, or whose
//   maximum is +inf, or that is all -inf gives NaN, as in PyTorch.
// * attention masks `j > i` when causal (tril(ones(L, S)): top-left
//   aligned); a bool mask keeps where true (the others score -inf), a float
//   mask is added; a row with every score masked is NaN (softmax of all
//   -inf), as PyTorch's math path.
// * Pooling output sizes are PyTorch's (ceil_mode: the last window must
//   start inside the input or the left padding). Windows that reach past
//   the padded input in ceil_mode read extra padding on the high side: -inf
//   for max_pool2d, 0 for avg_pool2d, whose divisor is ATen's: the window
//   clamped to the padded input for count_include_pad, to the input
//   otherwise, or divisor_override.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"
#include "tgc/Transforms/Tf32.h"

#include "Utils.h"

#include "tgc/Dialect/Tgc/IR/ShapeRules.h"
#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Maximum over the dims with `reduced` (kept dims, `computeType`).
Value buildSoftmaxMax(OpBuilder &b, Location loc, Value input,
                      ArrayRef<bool> reduced, Type computeType) {
  Value lowest = createExtremeValue(b, loc, computeType, /*lowest=*/true);
  return buildReduction(
      b, loc, input, reduced, {}, lowest,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = convertScalar(nb, l, args[0], computeType);
        return SmallVector<Value>{arith::MaximumFOp::create(nb, l, args[1], x)};
      })[0];
}

/// Maximum and sum of exp(x - max) over the dims with `reduced` (kept dims,
/// `computeType`).
std::pair<Value, Value> buildSoftmaxStatistics(OpBuilder &b, Location loc,
                                               Value input,
                                               ArrayRef<bool> reduced,
                                               Type computeType) {
  Value max = buildSoftmaxMax(b, loc, input, reduced, computeType);
  Value zero = createScalarConstant(b, loc, computeType, 0.0);
  Value sum = buildReduction(
      b, loc, input, reduced, max, zero,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = convertScalar(nb, l, args[0], computeType);
        Value e = math::ExpOp::create(nb, l,
                                      arith::SubFOp::create(nb, l, x, args[1]));
        return SmallVector<Value>{arith::AddFOp::create(nb, l, args[2], e)};
      })[0];
  return {max, sum};
}

SmallVector<bool> negate(ArrayRef<bool> mask) {
  return llvm::map_to_vector(mask, [](bool m) { return !m; });
}

template <typename OpTy> struct SoftmaxLowering : OpRewritePattern<OpTy> {
  SoftmaxLowering(MLIRContext *ctx, bool logarithm, bool expOnce)
      : OpRewritePattern<OpTy>(ctx), logarithm(logarithm), expOnce(expOnce) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type element = type.getElementType();
    Type computeType = getOpmathType(element);
    int64_t rank = type.getRank();
    SmallVector<bool> reduced(rank, false);
    if (rank > 0)
      reduced[op.getDim()] = true;
    AffineMap keptMap =
        getSelectedDimsMap(rewriter.getContext(), negate(reduced));
    if (expOnce && !logarithm) {
      // e = exp(x - max) once; sum(e); e / sum.
      Value max = buildSoftmaxMax(rewriter, loc, input, reduced, computeType);
      Value exps = buildMapOverInput(
          rewriter, loc, input, ValueRange{max}, {keptMap}, computeType,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value x = convertScalar(b, l, args[0], computeType);
            return math::ExpOp::create(b, l,
                                       arith::SubFOp::create(b, l, x, args[1]));
          });
      Value zero = createScalarConstant(rewriter, loc, computeType, 0.0);
      Value sum = buildReduction(
          rewriter, loc, exps, reduced, {}, zero,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            return SmallVector<Value>{
                arith::AddFOp::create(nb, l, args[1], args[0])};
          })[0];
      Value result = buildMapOverInput(
          rewriter, loc, exps, ValueRange{sum}, {keptMap}, element,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            auto div = arith::DivFOp::create(b, l, args[0], args[1]);
            div->setAttr(kSoftmaxSumDivisionAttrName, b.getUnitAttr());
            return div;
          });
      rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
      return success();
    }
    auto [max, sum] =
        buildSoftmaxStatistics(rewriter, loc, input, reduced, computeType);
    bool log = logarithm;
    Value result = buildMapOverInput(
        rewriter, loc, input, ValueRange{max, sum}, {keptMap, keptMap}, element,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = convertScalar(b, l, args[0], computeType);
          Value shifted = arith::SubFOp::create(b, l, x, args[1]);
          if (log)
            return arith::SubFOp::create(b, l, shifted,
                                         math::LogOp::create(b, l, args[2]));
          auto div = arith::DivFOp::create(
              b, l, math::ExpOp::create(b, l, shifted), args[2]);
          div->setAttr(kSoftmaxSumDivisionAttrName, b.getUnitAttr());
          return div;
        });
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
  bool logarithm;
  bool expOnce;
};

/// 1 / sqrt(sum / count + eps) over the kept dims.
Value buildInverseRoot(OpBuilder &b, Location loc, Value sum, Value count,
                       Value eps) {
  auto type = cast<RankedTensorType>(sum.getType());
  Type computeType = type.getElementType();
  return buildElementwise(
      b, loc, type, sum, nullptr,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value mean = arith::DivFOp::create(nb, l, args[0], count);
        Value root = math::SqrtOp::create(
            nb, l, arith::AddFOp::create(nb, l, mean, eps));
        Value one = createScalarConstant(nb, l, computeType, 1.0);
        return arith::DivFOp::create(nb, l, one, root);
      });
}

/// (x - mean) / sqrt(var + eps) * weight + bias over the trailing
/// `normalized_rank` dims, with the biased variance computed in two passes.
struct LayerNormLowering : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type element = type.getElementType();
    Type computeType = getOpmathType(element);
    int64_t rank = type.getRank();
    int64_t normalized = static_cast<int64_t>(op.getNormalizedRank());
    SmallVector<bool> reduced(rank, false);
    for (int64_t d = rank - normalized; d < rank; ++d)
      reduced[d] = true;
    Value count = indexToScalar(
        rewriter, loc, getSelectedSizesProduct(rewriter, loc, input, reduced),
        computeType);
    Value zero = createScalarConstant(rewriter, loc, computeType, 0.0);
    Value sum = buildReduction(
        rewriter, loc, input, reduced, {}, zero,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], computeType);
          return SmallVector<Value>{arith::AddFOp::create(b, l, args[1], x)};
        })[0];
    Value mean = buildElementwise(
        rewriter, loc, cast<RankedTensorType>(sum.getType()), sum, nullptr,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::DivFOp::create(b, l, args[0], count);
        });
    Value m2 = buildReduction(
        rewriter, loc, input, reduced, mean, zero,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], computeType);
          Value d = arith::SubFOp::create(b, l, x, args[1]);
          Value sq = arith::MulFOp::create(b, l, d, d);
          return SmallVector<Value>{arith::AddFOp::create(b, l, args[2], sq)};
        })[0];
    Value eps = createScalarConstant(rewriter, loc, computeType,
                                     op.getEps().convertToDouble());
    Value rstd = buildInverseRoot(rewriter, loc, m2, count, eps);

    AffineMap keptMap = getSelectedDimsMap(ctx, negate(reduced));
    AffineMap normalizedMap = getSelectedDimsMap(ctx, reduced);
    SmallVector<Value> extra{mean, rstd};
    SmallVector<AffineMap> maps{keptMap, keptMap};
    Value weight = op.getWeight(), bias = op.getBias();
    if (weight) {
      extra.push_back(weight);
      maps.push_back(normalizedMap);
    }
    if (bias) {
      extra.push_back(bias);
      maps.push_back(normalizedMap);
    }
    Value result = buildMapOverInput(
        rewriter, loc, input, extra, maps, element,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = convertScalar(b, l, args[0], computeType);
          Value y = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, x, args[1]), args[2]);
          unsigned next = 3;
          if (weight)
            y = arith::MulFOp::create(
                b, l, y, convertScalar(b, l, args[next++], computeType));
          if (bias)
            y = arith::AddFOp::create(
                b, l, y, convertScalar(b, l, args[next++], computeType));
          return y;
        });
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// x / sqrt(mean(x^2) + eps) * weight over the trailing `normalized_rank`
/// dims; eps defaults to the machine epsilon of the element type
/// (torch.finfo(dtype).eps).
struct RmsNormLowering : OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RmsNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    auto element = cast<FloatType>(type.getElementType());
    Type computeType = getOpmathType(element);
    int64_t rank = type.getRank();
    int64_t normalized = static_cast<int64_t>(op.getNormalizedRank());
    SmallVector<bool> reduced(rank, false);
    for (int64_t d = rank - normalized; d < rank; ++d)
      reduced[d] = true;
    double epsValue;
    if (auto eps = op.getEps())
      epsValue = eps->convertToDouble();
    else
      epsValue = std::ldexp(
          1.0, 1 - static_cast<int>(llvm::APFloat::semanticsPrecision(
                       element.getFloatSemantics())));
    Value eps = createScalarConstant(rewriter, loc, computeType, epsValue);
    Value count = indexToScalar(
        rewriter, loc, getSelectedSizesProduct(rewriter, loc, input, reduced),
        computeType);
    Value zero = createScalarConstant(rewriter, loc, computeType, 0.0);
    Value sum = buildReduction(
        rewriter, loc, input, reduced, {}, zero,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], computeType);
          Value sq = arith::MulFOp::create(b, l, x, x);
          return SmallVector<Value>{arith::AddFOp::create(b, l, args[1], sq)};
        })[0];
    Value rstd = buildInverseRoot(rewriter, loc, sum, count, eps);
    SmallVector<Value> extra{rstd};
    SmallVector<AffineMap> maps{getSelectedDimsMap(ctx, negate(reduced))};
    Value weight = op.getWeight();
    if (weight) {
      extra.push_back(weight);
      maps.push_back(getSelectedDimsMap(ctx, reduced));
    }
    Value result = buildMapOverInput(
        rewriter, loc, input, extra, maps, element,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = convertScalar(b, l, args[0], computeType);
          Value y = arith::MulFOp::create(b, l, x, args[1]);
          if (weight)
            y = arith::MulFOp::create(
                b, l, y, convertScalar(b, l, args[2], computeType));
          return y;
        });
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// scaled_dot_product_attention
//===----------------------------------------------------------------------===//

/// softmax(Q K^T * scale + mask) V on tensors: a contraction over E with
/// the batch dims of Q, K and V broadcast, a generic applying scale, mask
/// and causality, the softmax over S (computed in f32, rounded to the
/// inputs' dtype) and the contraction with V.
struct AttentionLowering : OpRewritePattern<ScaledDotProductAttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaledDotProductAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    auto qType = cast<RankedTensorType>(q.getType());
    auto kType = cast<RankedTensorType>(k.getType());
    auto vType = cast<RankedTensorType>(v.getType());
    Type element = qType.getElementType();
    Type computeType = getOpmathType(element);
    int64_t qRank = qType.getRank(), kRank = kType.getRank(),
            vRank = vType.getRank();

    SmallVector<int64_t> batchShape;
    SmallVector<OpFoldResult> batchSizes;
    broadcastLeadingDims(rewriter, loc, {q, k, v},
                         {qRank - 2, kRank - 2, vRank - 2}, batchShape,
                         batchSizes);
    int64_t batch = batchShape.size();

    // The mask may only broadcast into the scores [batch..., L, S]: a mask
    // batch size against a static 1 of Q, K and V would enlarge PyTorch's
    // result beyond the op's result type.
    Value mask = op.getMask();
    SmallVector<AffineExpr> maskExprs;
    SmallVector<int64_t> scoresShape(batchShape);
    scoresShape.push_back(qType.getDimSize(qRank - 2));
    scoresShape.push_back(kType.getDimSize(kRank - 2));
    if (mask) {
      auto maskType = cast<RankedTensorType>(mask.getType());
      int64_t offset = batch + 2 - maskType.getRank();
      if (offset < 0)
        return rewriter.notifyMatchFailure(op, "mask rank too large");
      for (int64_t d = 0; d < maskType.getRank(); ++d) {
        int64_t size = maskType.getDimSize(d);
        int64_t scoresSize = scoresShape[offset + d];
        if (size == 1 && scoresSize != 1) {
          maskExprs.push_back(getAffineConstantExpr(0, ctx));
          continue;
        }
        if (size != 1 && scoresSize == 1 && offset + d < batch)
          return rewriter.notifyMatchFailure(
              op, "the mask enlarges the batch beyond query, key and value");
        maskExprs.push_back(getAffineDimExpr(offset + d, ctx));
      }
    }

    // scores[batch..., l, s] = sum_e q[.., l, e] * k[.., s, e]
    int64_t loops = batch + 3;
    AffineExpr l = getAffineDimExpr(batch, ctx);
    AffineExpr s = getAffineDimExpr(batch + 1, ctx);
    AffineExpr e = getAffineDimExpr(batch + 2, ctx);
    SmallVector<AffineExpr> qExprs =
        getBroadcastBatchExprs(ctx, qType, qRank - 2, batchShape);
    qExprs.append({l, e});
    SmallVector<AffineExpr> kExprs =
        getBroadcastBatchExprs(ctx, kType, kRank - 2, batchShape);
    kExprs.append({s, e});
    SmallVector<AffineExpr> scoresExprs;
    for (int64_t d = 0; d < batch; ++d)
      scoresExprs.push_back(getAffineDimExpr(d, ctx));
    scoresExprs.append({l, s});
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, qExprs, ctx),
                                AffineMap::get(loops, 0, kExprs, ctx),
                                AffineMap::get(loops, 0, scoresExprs, ctx)};
    SmallVector<OpFoldResult> scoresSizes(batchSizes);
    scoresSizes.push_back(tensor::getMixedSize(rewriter, loc, q, qRank - 2));
    scoresSizes.push_back(tensor::getMixedSize(rewriter, loc, k, kRank - 2));
    Value scores = buildMulAddReduction(rewriter, loc, q, k, scoresShape,
                                        scoresSizes, computeType, maps);

    // The scale: given, or 1 / sqrt(E) (computed in f64 as PyTorch does).
    Value scale;
    if (auto given = op.getScale()) {
      scale = createScalarConstant(rewriter, loc, computeType,
                                   given->convertToDouble());
    } else if (!qType.isDynamicDim(qRank - 1)) {
      scale = createScalarConstant(
          rewriter, loc, computeType,
          1.0 / std::sqrt(static_cast<double>(qType.getDimSize(qRank - 1))));
    } else {
      Value size = tensor::DimOp::create(rewriter, loc, q, qRank - 1);
      Value f64Size = indexToScalar(rewriter, loc, size, rewriter.getF64Type());
      Value one = createScalarConstant(rewriter, loc, rewriter.getF64Type(), 1);
      Value inverse = arith::DivFOp::create(
          rewriter, loc, one, math::SqrtOp::create(rewriter, loc, f64Size));
      scale = convertScalar(rewriter, loc, inverse, computeType);
    }

    bool causal = op.getCausal();
    Value minusInf =
        createExtremeValue(rewriter, loc, computeType, /*lowest=*/true);
    SmallVector<Value> maskInputs;
    SmallVector<AffineMap> maskMaps;
    if (mask) {
      maskInputs.push_back(mask);
      maskMaps.push_back(AffineMap::get(batch + 2, 0, maskExprs, ctx));
    }
    Value masked = buildMapOverInput(
        rewriter, loc, scores, maskInputs, maskMaps, computeType,
        [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          Value score = arith::MulFOp::create(b, nl, args[0], scale);
          if (causal) {
            Value i = linalg::IndexOp::create(b, nl, batch);
            Value j = linalg::IndexOp::create(b, nl, batch + 1);
            Value future =
                arith::CmpIOp::create(b, nl, arith::CmpIPredicate::ugt, j, i);
            score = arith::SelectOp::create(b, nl, future, minusInf, score);
          }
          if (mask) {
            Value m = args[1];
            if (m.getType().isInteger(1))
              score = arith::SelectOp::create(b, nl, m, score, minusInf);
            else
              score = arith::AddFOp::create(
                  b, nl, score, convertScalar(b, nl, m, computeType));
          }
          return score;
        });

    SmallVector<bool> reduced(batch + 2, false);
    reduced.back() = true;
    auto [max, sum] =
        buildSoftmaxStatistics(rewriter, loc, masked, reduced, computeType);
    AffineMap keptMap = getSelectedDimsMap(ctx, negate(reduced));
    // The probabilities in the inputs' dtype, as PyTorch's math path
    // (softmax returns bf16 for bf16 scores) and flash attention (P is
    // rounded for the second product) have them: then P V is a GEMM of
    // one dtype with f32 accumulation, not a mixed-dtype contraction.
    Value probabilities = buildMapOverInput(
        rewriter, loc, masked, ValueRange{max, sum}, {keptMap, keptMap},
        element, [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          Value shifted = arith::SubFOp::create(b, nl, args[0], args[1]);
          Value p = arith::DivFOp::create(
              b, nl, math::ExpOp::create(b, nl, shifted), args[2]);
          return convertScalar(b, nl, p, element);
        });

    Value out = buildBroadcastBatchMatmul(rewriter, loc, probabilities, v,
                                          /*transposeRhs=*/false, computeType);
    Value result = convertTensor(rewriter, loc, out, element);
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// conv2d and pooling
//===----------------------------------------------------------------------===//

/// Shared by both poolings: the batched input, padded for the windows
/// (`padValue` on both sides, more on the high side in ceil_mode), and
/// the output sizes.
struct PoolSetup {
  Value input;  // [N, C, H, W], unpadded
  Value padded; // padded for the windows
  SmallVector<OpFoldResult> outSizes;
};

FailureOr<PoolSetup> setupPool(PatternRewriter &rewriter, Operation *op,
                               Value input, ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> stride,
                               ArrayRef<int64_t> padding,
                               ArrayRef<int64_t> dilation, bool ceilMode,
                               Value padValue) {
  Location loc = op->getLoc();
  if (cast<RankedTensorType>(input.getType()).getRank() == 3)
    input = expandUnitDims(rewriter, loc, input, {true, false, false, false});
  SmallVector<OpFoldResult> inSizes = getDims(rewriter, loc, input);
  PoolSetup setup;
  setup.input = input;
  setup.outSizes = {inSizes[0], inSizes[1]};
  SmallVector<OpFoldResult> high;
  for (int i = 0; i < 2; ++i) {
    FailureOr<WindowSize> size = getWindowSize(
        rewriter, loc, inSizes[2 + i], kernel[i], stride[i], padding[i],
        dilation[i], ceilMode, op->getName().getStringRef());
    if (failed(size))
      return rewriter.notifyMatchFailure(op, "the window does not fit");
    setup.outSizes.push_back(size->output);
    high.push_back(size->highPadding);
  }
  setup.padded = padSpatial(rewriter, loc, input, padding, high, padValue);
  return setup;
}

/// The max pool's windows read the unpadded input [N, C, H, W] (static,
/// non-zero H and W) at clamped positions, `lowest` outside it: loops (n,
/// c, oh, ow, kh, kw), the last two reductions (`im2col-pads`).
Value buildInPlaceMaxPool(OpBuilder &b, Location loc, Value input,
                          Value init, ArrayRef<int64_t> kernel,
                          ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                          ArrayRef<int64_t> dilation, Value lowest) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  Type element = inType.getElementType();
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  MLIRContext *ctx = b.getContext();
  AffineMap outMap = AffineMap::get(
      6, 0,
      {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
       getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx)},
      ctx);
  // The window's shape gives the kh and kw loops their sizes, as
  // linalg's pooling ops take it.
  Value window = tensor::EmptyOp::create(b, loc, kernel, element);
  AffineMap windowMap = AffineMap::get(
      6, 0, {getAffineDimExpr(4, ctx), getAffineDimExpr(5, ctx)}, ctx);
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{window}, ValueRange{init},
             ArrayRef<AffineMap>{windowMap, outMap}, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               auto index = [&](int64_t d) {
                 return linalg::IndexOp::create(nb, nl, d).getResult();
               };
               auto extent = [&](int64_t d) {
                 return arith::ConstantIndexOp::create(nb, nl,
                                                       inType.getDimSize(d))
                     .getResult();
               };
               Value v = readWindowElement(
                   nb, nl, input, index(0), index(1), {index(2), index(3)},
                   {index(4), index(5)}, stride, dilation, padding,
                   {extent(2), extent(3)}, lowest);
               // As linalg.pooling_nchw_max: NaN-propagating for floats.
               Value max =
                   isa<FloatType>(element)
                       ? arith::MaximumFOp::create(nb, nl, args[1], v)
                             .getResult()
                       : arith::MaxSIOp::create(nb, nl, args[1], v).getResult();
               linalg::YieldOp::create(nb, nl, max);
             })
      .getResult(0);
}

struct MaxPool2dLowering : OpRewritePattern<MaxPool2dOp> {
  MaxPool2dLowering(MLIRContext *ctx, bool padsInPlace)
      : OpRewritePattern(ctx), padsInPlace(padsInPlace) {}
  bool padsInPlace;
  LogicalResult matchAndRewrite(MaxPool2dOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    Type element = op.getInput().getType().getElementType();
    bool unbatched = op.getInput().getType().getRank() == 3;
    Value lowest = createExtremeValue(rewriter, loc, element, /*lowest=*/true);
    FailureOr<PoolSetup> setup =
        setupPool(rewriter, op, input, op.getKernel(), op.getStride(),
                  op.getPadding(), op.getDilation(), op.getCeilMode(), lowest);
    if (failed(setup))
      return failure();
    auto outType = RankedTensorType::get(
        llvm::map_to_vector(setup->outSizes, staticSize), element);
    Value init = createFilled(rewriter, loc, outType, setup->outSizes, lowest);
    auto inType = cast<RankedTensorType>(setup->input.getType());
    bool inPlace =
        padsInPlace && setup->padded != setup->input &&
        llvm::all_of(inType.getShape().take_back(2), [](int64_t s) {
          return !ShapedType::isDynamic(s) && s > 0;
        });
    Value result;
    if (inPlace) {
      result = buildInPlaceMaxPool(rewriter, loc, setup->input, init,
                                   op.getKernel(), op.getStride(),
                                   op.getPadding(), op.getDilation(), lowest);
    } else {
      Value window =
          tensor::EmptyOp::create(rewriter, loc, op.getKernel(), element);
      result = linalg::PoolingNchwMaxOp::create(
                   rewriter, loc, TypeRange{outType},
                   ValueRange{setup->padded, window}, ValueRange{init},
                   rewriter.getI64TensorAttr(op.getStride()),
                   rewriter.getI64TensorAttr(op.getDilation()))
                   .getResult(0);
    }
    if (unbatched)
      result =
          collapseUnitDims(rewriter, loc, result, {true, false, false, false});
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

struct AvgPool2dLowering : OpRewritePattern<AvgPool2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPool2dOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    Type element = op.getInput().getType().getElementType();
    Type accType = getAccumulatorType(element);
    bool unbatched = op.getInput().getType().getRank() == 3;
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      padding = op.getPadding();
    int64_t dilation[2] = {1, 1};
    Value zeroElement = createScalarConstant(rewriter, loc, element, 0.0);
    FailureOr<PoolSetup> setup =
        setupPool(rewriter, op, input, kernel, stride, padding, dilation,
                  op.getCeilMode(), zeroElement);
    if (failed(setup))
      return failure();
    auto outType = RankedTensorType::get(
        llvm::map_to_vector(setup->outSizes, staticSize), accType);
    Value zero = createScalarConstant(rewriter, loc, accType, 0.0);
    Value init = createFilled(rewriter, loc, outType, setup->outSizes, zero);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    Value sum = linalg::PoolingNchwSumOp::create(
                    rewriter, loc, TypeRange{outType},
                    ValueRange{setup->padded, window}, ValueRange{init},
                    rewriter.getI64TensorAttr(stride),
                    rewriter.getI64TensorAttr(dilation))
                    .getResult(0);

    std::optional<int64_t> divisorOverride;
    if (auto d = op.getDivisorOverride())
      divisorOverride = static_cast<int64_t>(*d);
    bool countIncludePad = op.getCountIncludePad();
    Value inputSizes[2] = {
        tensor::DimOp::create(rewriter, loc, setup->input, 2),
        tensor::DimOp::create(rewriter, loc, setup->input, 3)};
    Value result = buildMapOverInput(
        rewriter, loc, sum, {}, {}, element,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value divisor;
          if (divisorOverride) {
            divisor = createScalarConstant(b, l, accType, *divisorOverride);
          } else {
            // ATen's avg_pool2d: the window clamped to the padded input,
            // then (without count_include_pad) to the input.
            auto constant = [&](int64_t v) -> Value {
              return arith::ConstantIndexOp::create(b, l, v);
            };
            Value count;
            for (int i = 0; i < 2; ++i) {
              Value o = linalg::IndexOp::create(b, l, 2 + i);
              Value start = arith::SubIOp::create(
                  b, l, arith::MulIOp::create(b, l, o, constant(stride[i])),
                  constant(padding[i]));
              Value end = arith::MinSIOp::create(
                  b, l, arith::AddIOp::create(b, l, start, constant(kernel[i])),
                  arith::AddIOp::create(b, l, inputSizes[i],
                                        constant(padding[i])));
              if (!countIncludePad) {
                start = arith::MaxSIOp::create(b, l, start, constant(0));
                end = arith::MinSIOp::create(b, l, end, inputSizes[i]);
              }
              Value extent = arith::SubIOp::create(b, l, end, start);
              count =
                  count ? arith::MulIOp::create(b, l, count, extent) : extent;
            }
            divisor = indexToScalar(b, l, count, accType);
          }
          return arith::DivFOp::create(b, l, args[0], divisor);
        });
    if (unbatched)
      result =
          collapseUnitDims(rewriter, loc, result, {true, false, false, false});
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

} // namespace

void mlir::tgc::populateTgcNNToLinalgPatterns(RewritePatternSet &patterns,
                                              bool softmaxExpOnce,
                                              bool padsInPlace) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SoftmaxLowering<SoftmaxOp>>(ctx, /*logarithm=*/false,
                                           softmaxExpOnce);
  patterns.add<SoftmaxLowering<LogSoftmaxOp>>(ctx, /*logarithm=*/true,
                                              softmaxExpOnce);
  patterns.add<LayerNormLowering, RmsNormLowering, AttentionLowering,
               AvgPool2dLowering>(ctx);
  patterns.add<MaxPool2dLowering>(ctx, padsInPlace);
}
