//===- ConvolutionBackward.cpp - tgc.conv2d's gradients to linalg ---------===//
//
// tgc.conv2d_backward_input and tgc.conv2d_backward_weight as one
// linalg.generic each, the reduction that defines them:
// - the input's gradient over loops (n, c, h, w, o, kh, kw), the weight its
//   input (o of the group of c), the output gradient read in the body where
//   `h + padding - kh * dilation` is a multiple of the stride inside it,
//   zero elsewhere;
// - the weight's gradient over loops (o, c, kh, kw, n, oh, ow), the output
//   gradient its input, the convolution's input read in the body at the
//   window element, zero outside it.
// With `library-convolutions` the f32 ones cuDNN can run carry
// #tgc_gpu.conv with kind `backward_data` / `backward_filter`: the launch
// plan runs them as cuDNN's backward operations. Elsewhere a kernel (GPU)
// or a loop nest (CPU) runs the generic.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"
#include "tgc/Dialect/TgcGpu/IR/TgcGpuDialect.h"
#include "tgc/Transforms/Tf32.h"

#include "Utils.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v).getResult();
}

/// Marks `generic` for cuDNN with `kind`, the window of `op`.
template <typename OpT>
void markLibrary(linalg::GenericOp generic, OpT op, StringRef kind) {
  generic->setAttr(tgc_gpu::TgcGpuDialect::kConvAttrName,
                   tgc_gpu::ConvAttr::get(op.getContext(), op.getStride(),
                                          op.getPadding(), op.getDilation(),
                                          static_cast<int64_t>(op.getGroups()),
                                          op->hasAttr(kTf32AttrName), kind));
}

/// What both gradients' lowerings share: the options, the generic's
/// output map and iterators (loops 0-3 the result's, 4-6 reductions), and
/// the end: the library mark, the conversion from the accumulator type and
/// the replacement.
template <typename OpT> struct ConvGradientLowering : OpRewritePattern<OpT> {
  ConvGradientLowering(MLIRContext *ctx, const ConvolutionLowering &options)
      : OpRewritePattern<OpT>(ctx), options(options) {}
  ConvolutionLowering options;

  static AffineMap outMap(MLIRContext *ctx) {
    return AffineMap::getMultiDimIdentityMap(7, ctx).getMajorSubMap(4);
  }
  static SmallVector<utils::IteratorType> iterators() {
    SmallVector<utils::IteratorType> its(4, utils::IteratorType::parallel);
    its.append(3, utils::IteratorType::reduction);
    return its;
  }
  LogicalResult finish(PatternRewriter &rewriter, OpT op,
                       linalg::GenericOp generic, StringRef kind) const {
    Type element = op.getType().getElementType();
    if (options.library && element.isF32())
      markLibrary(generic, op, kind);
    Value result =
        convertTensor(rewriter, op.getLoc(), generic.getResult(0), element);
    rewriter.replaceOp(op,
                       castToType(rewriter, op.getLoc(), result, op.getType()));
    return success();
  }
};

struct Conv2dBackwardInputLowering
    : ConvGradientLowering<Conv2dBackwardInputOp> {
  using ConvGradientLowering::ConvGradientLowering;

  LogicalResult matchAndRewrite(Conv2dBackwardInputOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value dy = op.getGradOutput(), weight = op.getWeight();
    auto weightType = cast<RankedTensorType>(weight.getType());
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type accType = getAccumulatorType(element);
    if (!weightType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic weight sizes");
    int64_t groups = static_cast<int64_t>(op.getGroups());
    int64_t og = weightType.getDimSize(0) / groups;
    int64_t cg = weightType.getDimSize(1);
    int64_t kernel[2] = {weightType.getDimSize(2), weightType.getDimSize(3)};
    ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(),
                      dilation = op.getDilation();

    // Loops (n, c, h, w, o, kh, kw); the weight at (o, c, kh, kw), or,
    // grouped, viewed as [G, O/G, C/G, kH, kW] at (c / (C/G), o, c mod
    // (C/G), kh, kw): o ranges over c's group (a map whose loops all appear
    // as results, as linalg needs).
    AffineExpr d[7];
    bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
    AffineMap weightMap = AffineMap::get(7, 0, {d[4], d[1], d[5], d[6]}, ctx);
    if (groups > 1) {
      weightMap = AffineMap::get(
          7, 0, {d[1].floorDiv(cg), d[4], d[1] % cg, d[5], d[6]}, ctx);
      weight = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({groups, og, cg, kernel[0], kernel[1]},
                                weightType.getElementType()),
          weight, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    }
    SmallVector<OpFoldResult> outSizes{
        tensor::getMixedSize(rewriter, loc, dy, 0),
        rewriter.getIndexAttr(cg * groups),
        rewriter.getIndexAttr(resultType.getDimSize(2)),
        rewriter.getIndexAttr(resultType.getDimSize(3))};
    auto accResult = RankedTensorType::get(
        llvm::map_to_vector(outSizes, staticSize), accType);
    Value init =
        createFilled(rewriter, loc, accResult, outSizes,
                     createScalarConstant(rewriter, loc, accType, 0.0));
    Value extents[2] = {tensor::DimOp::create(rewriter, loc, dy, 2),
                        tensor::DimOp::create(rewriter, loc, dy, 3)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accResult}, ValueRange{weight},
        ValueRange{init}, ArrayRef<AffineMap>{weightMap, outMap(ctx)},
        iterators(), [&](OpBuilder &nb, Location nl, ValueRange args) {
          auto index = [&](int64_t dim) {
            return linalg::IndexOp::create(nb, nl, dim).getResult();
          };
          Value zero = indexConstant(nb, nl, 0), inside;
          SmallVector<Value> at{index(0), groupChannel(nb, nl, index(1), cg, og,
                                                       index(4), groups)};
          for (int i = 0; i < 2; ++i) {
            // t = h + p - kh * d: dy's element at t / s when t >= 0 is a
            // multiple of s and t / s < H'.
            Value t = arith::SubIOp::create(
                nb, nl,
                arith::AddIOp::create(nb, nl, index(2 + i),
                                      indexConstant(nb, nl, padding[i])),
                arith::MulIOp::create(nb, nl, index(5 + i),
                                      indexConstant(nb, nl, dilation[i])));
            Value nonNegative = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::sge, t, zero);
            Value clamped =
                arith::SelectOp::create(nb, nl, nonNegative, t, zero);
            Value s = indexConstant(nb, nl, stride[i]);
            Value q = arith::DivUIOp::create(nb, nl, clamped, s);
            Value ok = arith::AndIOp::create(
                nb, nl, nonNegative,
                arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, q,
                                      extents[i]));
            if (stride[i] > 1)
              ok = arith::AndIOp::create(
                  nb, nl, ok,
                  arith::CmpIOp::create(
                      nb, nl, arith::CmpIPredicate::eq,
                      arith::RemUIOp::create(nb, nl, clamped, s), zero));
            inside = inside
                         ? arith::AndIOp::create(nb, nl, inside, ok).getResult()
                         : ok;
            at.push_back(q);
          }
          for (int i = 2; i < 4; ++i)
            at[i] = arith::SelectOp::create(nb, nl, inside, at[i], zero);
          Value v = tensor::ExtractOp::create(nb, nl, dy, at);
          v = arith::SelectOp::create(
              nb, nl, inside, v, createScalarConstant(nb, nl, element, 0.0));
          Value product =
              arith::MulFOp::create(nb, nl, convertScalar(nb, nl, v, accType),
                                    convertScalar(nb, nl, args[0], accType));
          linalg::YieldOp::create(
              nb, nl,
              arith::AddFOp::create(nb, nl, args[1], product).getResult());
        });
    return finish(rewriter, op, generic, "backward_data");
  }
};

struct Conv2dBackwardWeightLowering
    : ConvGradientLowering<Conv2dBackwardWeightOp> {
  using ConvGradientLowering::ConvGradientLowering;

  LogicalResult matchAndRewrite(Conv2dBackwardWeightOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value dy = op.getGradOutput(), input = op.getInput();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type accType = getAccumulatorType(element);
    if (!resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic channel counts");
    int64_t groups = static_cast<int64_t>(op.getGroups());
    int64_t og = resultType.getDimSize(0) / groups;
    int64_t cg = resultType.getDimSize(1);
    ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(),
                      dilation = op.getDilation();

    // Loops (o, c, kh, kw, n, oh, ow); dy at (n, o, oh, ow).
    AffineExpr d[7];
    bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
    AffineMap dyMap = AffineMap::get(7, 0, {d[4], d[0], d[5], d[6]}, ctx);
    SmallVector<OpFoldResult> outSizes = llvm::map_to_vector(
        resultType.getShape(),
        [&](int64_t s) -> OpFoldResult { return rewriter.getIndexAttr(s); });
    auto accResult = RankedTensorType::get(resultType.getShape(), accType);
    Value init =
        createFilled(rewriter, loc, accResult, outSizes,
                     createScalarConstant(rewriter, loc, accType, 0.0));
    // The body reads channel o / (O/G) * C/G + c: a `?` channel count must
    // be G times the gradient's, or those reads would leave the input.
    if (cast<RankedTensorType>(input.getType()).isDynamicDim(1))
      cf::AssertOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                tensor::DimOp::create(rewriter, loc, input, 1),
                                indexConstant(rewriter, loc, groups * cg)),
          "tgc.conv2d_backward_weight: the input channels are not groups "
          "times the gradient's");
    Value extents[2] = {tensor::DimOp::create(rewriter, loc, input, 2),
                        tensor::DimOp::create(rewriter, loc, input, 3)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accResult}, ValueRange{dy}, ValueRange{init},
        ArrayRef<AffineMap>{dyMap, outMap(ctx)}, iterators(),
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          auto index = [&](int64_t dim) {
            return linalg::IndexOp::create(nb, nl, dim).getResult();
          };
          Value channel =
              groupChannel(nb, nl, index(0), og, cg, index(1), groups);
          Value v = readWindowElement(
              nb, nl, input, index(4), channel, {index(5), index(6)},
              {index(2), index(3)}, stride, dilation, padding, extents,
              createScalarConstant(nb, nl, element, 0.0),
              /*checkUnpadded=*/false);
          Value product = arith::MulFOp::create(
              nb, nl, convertScalar(nb, nl, args[0], accType),
              convertScalar(nb, nl, v, accType));
          linalg::YieldOp::create(
              nb, nl,
              arith::AddFOp::create(nb, nl, args[1], product).getResult());
        });
    return finish(rewriter, op, generic, "backward_filter");
  }
};

} // namespace

void mlir::tgc::populateTgcConvolutionBackwardToLinalgPatterns(
    RewritePatternSet &patterns, const ConvolutionLowering &options) {
  patterns.add<Conv2dBackwardInputLowering, Conv2dBackwardWeightLowering>(
      patterns.getContext(), options);
}
