//===- Convolution.cpp - tgc.conv2d to linalg -----------------------------===//
//
// Four forms, by back end and shape:
// - with `direct-convolutions` (the CPU), an ungrouped f32/f64 convolution
//   of stride 1 along the width whose images have at least 256 outputs: one
//   window contraction over the padded input, which
//   tgc-vectorize-contractions runs in register tiles;
// - im2col (ungrouped, not both output sizes `?`): the windows gathered
//   into patches and one matrix product, the contraction both back ends
//   run fastest;
// - linalg's named convolutions otherwise (grouped: per group);
// - with `library-convolutions` (the GPU pipeline, when cuDNN runs
//   convolutions): a direct convolution as one generic marked
//   #tgc_gpu.conv, which the launch plan runs as a cuDNN call.
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

/// `im2col-batch-columns` widens products whose images have fewer outputs.
constexpr int64_t kBatchColumnsBelow = 256;

/// An ungrouped convolution as a matrix product (im2col): the windows of
/// the padded input [N, C, H, W] gathered into patches [N, C, kH, kW, H',
/// W'] (an elementwise generic whose input map is the window's), viewed as
/// [N, C kH kW, H' W'], and the weight [O, C kH kW] times it, broadcast over
/// the batch: [N, O, H' W'] -> [N, O, H', W'] in `accType`. The product is
/// the contraction both back ends run fastest (cuBLASLt on the GPU, a
/// vectorized matrix loop nest on the CPU), where a convolution's window
/// loops ran 15-25 times slower; the patches cost kH kW times the input's
/// memory. The product carries the `tgc.tf32` mark of `source`, the
/// convolution (tgc-mark-tf32). With `unpadded` (the input before its
/// `padding`, of static spatial sizes), the patches read it directly,
/// zero outside it, instead of a padded copy that a kernel of its own
/// would write first (`im2col-pads`). With `batchColumns`
/// (`im2col-batch-columns`, static H' and W'), the patches are [C, kH, kW,
/// N, H', W'], viewed as [C kH kW, N H' W'], one product [O, N H' W']
/// takes the batch into its columns, and its [O, N, H', W'] is transposed
/// to [N, O, H', W']: where an image has few outputs (ResNet's later
/// layers: 16 to 196 at 112x112) a product per image is thin, which
/// register tiles fill badly.
Value buildIm2colConv(OpBuilder &b, Location loc, Operation *source,
                      Value padded, Value unpadded, ArrayRef<int64_t> padding,
                      Value weight, OpFoldResult n, OpFoldResult o,
                      ArrayRef<OpFoldResult> outSpatial,
                      const int64_t (&kernel)[2], ArrayRef<int64_t> stride,
                      ArrayRef<int64_t> dilation, Type accType,
                      bool batchColumns) {
  MLIRContext *ctx = b.getContext();
  auto paddedType = cast<RankedTensorType>(padded.getType());
  Type element = paddedType.getElementType();
  OpFoldResult c = tensor::getMixedSize(b, loc, padded, 1);
  // The patch dims' positions: (n, c, kh, kw, oh, ow), or (c, kh, kw, n,
  // oh, ow) with the batch in the columns.
  enum { N, C, KH, KW, OH, OW };
  const int64_t perImage[6] = {0, 1, 2, 3, 4, 5};
  const int64_t columns[6] = {3, 0, 1, 2, 4, 5};
  const int64_t *pos = batchColumns ? columns : perImage;
  OpFoldResult sizes[6] = {n,
                           c,
                           b.getIndexAttr(kernel[0]),
                           b.getIndexAttr(kernel[1]),
                           outSpatial[0],
                           outSpatial[1]};
  SmallVector<OpFoldResult> patchSizes(6);
  for (int dim = 0; dim < 6; ++dim)
    patchSizes[pos[dim]] = sizes[dim];
  auto patchType = RankedTensorType::get(
      llvm::map_to_vector(patchSizes, staticSize), element);
  Value empty = createEmpty(b, loc, patchType, patchSizes);
  // -> padded[n, c, oh * s0 + kh * d0, ow * s1 + kw * d1]
  auto d = [&](int dim) { return getAffineDimExpr(pos[dim], ctx); };
  AffineMap window = AffineMap::get(
      6, 0,
      {d(N), d(C), d(OH) * stride[0] + d(KH) * dilation[0],
       d(OW) * stride[1] + d(KW) * dilation[1]},
      ctx);
  SmallVector<utils::IteratorType> parallel(6, utils::IteratorType::parallel);
  Value patches;
  if (unpadded) {
    auto inType = cast<RankedTensorType>(unpadded.getType());
    patches =
        linalg::GenericOp::create(
            b, loc, TypeRange{patchType}, ValueRange{}, ValueRange{empty},
            ArrayRef<AffineMap>{b.getMultiDimIdentityMap(6)}, parallel,
            [&](OpBuilder &nb, Location nl, ValueRange) {
              auto index = [&](int dim) {
                return linalg::IndexOp::create(nb, nl, pos[dim]).getResult();
              };
              auto extent = [&](int64_t dim) {
                return arith::ConstantIndexOp::create(nb, nl,
                                                      inType.getDimSize(dim))
                    .getResult();
              };
              // The window element, zero outside the input.
              linalg::YieldOp::create(
                  nb, nl,
                  readWindowElement(
                      nb, nl, unpadded, index(N), index(C),
                      {index(OH), index(OW)}, {index(KH), index(KW)}, stride,
                      dilation, padding, {extent(2), extent(3)},
                      createScalarConstant(nb, nl, element, 0.0)));
            })
            .getResult(0);
  } else {
    patches =
        linalg::GenericOp::create(
            b, loc, TypeRange{patchType}, ValueRange{padded}, ValueRange{empty},
            ArrayRef<AffineMap>{window, b.getMultiDimIdentityMap(6)}, parallel,
            [](OpBuilder &nb, Location nl, ValueRange args) {
              linalg::YieldOp::create(nb, nl, args[0]);
            })
            .getResult(0);
  }
  Value columnsView = tensor::CollapseShapeOp::create(
      b, loc, patches,
      batchColumns
          ? SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}}
          : SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
  Value matrix = tensor::CollapseShapeOp::create(
      b, loc, weight, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  Value flat = buildBroadcastBatchMatmul(b, loc, matrix, columnsView,
                                         /*transposeRhs=*/false, accType);
  copyTf32Mark(source, flat);
  SmallVector<OpFoldResult> outSizes{n, o, outSpatial[0], outSpatial[1]};
  auto outType =
      RankedTensorType::get(llvm::map_to_vector(outSizes, staticSize), accType);
  if (!batchColumns)
    return tensor::ExpandShapeOp::create(
        b, loc, outType, flat,
        SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}}, outSizes);
  // [O, N H' W'] -> [O, N, H', W'] -> [N, O, H', W'].
  SmallVector<OpFoldResult> productSizes{o, n, outSpatial[0], outSpatial[1]};
  Value product = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get(llvm::map_to_vector(productSizes, staticSize),
                            accType),
      flat, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}}, productSizes);
  AffineMap swapped = AffineMap::getPermutationMap(
      ArrayRef<unsigned>{1, 0, 2, 3}, ctx);
  SmallVector<utils::IteratorType> four(4, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, ValueRange{product},
             ValueRange{createEmpty(b, loc, outType, outSizes)},
             ArrayRef<AffineMap>{swapped, b.getMultiDimIdentityMap(4)}, four,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

/// A convolution as one generic over loops (n, o, oh, ow, c, kh, kw): the
/// weight's map (o, c, kh, kw), the output's (n, o, oh, ow), the
/// iterators (four parallel, three reductions) and the zero-filled
/// [N, O, H', W'] output in `accType`. The direct convolution and the
/// library's share it.
struct ConvolutionLoops {
  AffineMap weight, out;
  SmallVector<utils::IteratorType> iterators;
  Value init;
};

ConvolutionLoops convolutionLoops(OpBuilder &b, Location loc, OpFoldResult n,
                                  OpFoldResult o,
                                  ArrayRef<OpFoldResult> outSpatial,
                                  Type accType) {
  MLIRContext *ctx = b.getContext();
  AffineExpr d[7];
  bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
  ConvolutionLoops loops;
  loops.weight = AffineMap::get(7, 0, {d[1], d[4], d[5], d[6]}, ctx);
  loops.out = AffineMap::get(7, 0, {d[0], d[1], d[2], d[3]}, ctx);
  loops.iterators.assign(4, utils::IteratorType::parallel);
  loops.iterators.append(3, utils::IteratorType::reduction);
  SmallVector<OpFoldResult> outSizes{n, o, outSpatial[0], outSpatial[1]};
  auto outType =
      RankedTensorType::get(llvm::map_to_vector(outSizes, staticSize), accType);
  loops.init = createFilled(b, loc, outType, outSizes,
                            createScalarConstant(b, loc, accType, 0.0));
  return loops;
}

/// A direct convolution (`direct-convolutions`): one contraction over
/// loops (n, o, oh, ow, c, kh, kw) of the padded input [N, C, H, W] read
/// at (n, c, oh * s0 + kh * d0, ow + kw * d1) and the weight [O, C, kH, kW]
/// at (o, c, kh, kw) into a zero-filled [N, O, H', W'], marked
/// `tgc.direct_conv`. Each output is summed over c, kh, kw in that order,
/// the order of the im2col product's k. The CPU runs it in register
/// tiles of output channels by two vectors of output columns
/// (tgc-form-kernels, tgc-vectorize-contractions), reading each window
/// from the input: im2col's patches wrote and read kH kW times the input.
Value buildDirectConv(OpBuilder &b, Location loc, Value padded, Value weight,
                      OpFoldResult n, OpFoldResult o,
                      ArrayRef<OpFoldResult> outSpatial,
                      ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation,
                      Type accType) {
  MLIRContext *ctx = b.getContext();
  ConvolutionLoops loops = convolutionLoops(b, loc, n, o, outSpatial, accType);
  AffineExpr d[7];
  bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
  AffineMap window =
      AffineMap::get(7, 0,
                     {d[0], d[4], d[2] * stride[0] + d[5] * dilation[0],
                      d[3] + d[6] * dilation[1]},
                     ctx);
  Value result = buildMulAddContraction(b, loc, padded, weight, loops.init,
                                        {window, loops.weight, loops.out},
                                        loops.iterators);
  result.getDefiningOp()->setAttr(kDirectConvAttrName, b.getUnitAttr());
  return result;
}

/// Whether cuDNN can run the convolution (`library-convolutions`): f32
/// [N, C, H, W] and [O, C / groups, kH, kW] with static, non-zero O,
/// C / groups and kernel sizes (cuDNN's filter descriptor is static
/// per plan step, and an empty reduction is not a convolution it runs).
bool canRunOnLibrary(RankedTensorType input, RankedTensorType weight,
                     int64_t groups) {
  if (input.getRank() != 4 || weight.getRank() != 4 ||
      !input.getElementType().isF32() || !weight.getElementType().isF32())
    return false;
  for (int64_t size : weight.getShape())
    if (ShapedType::isDynamic(size) || size == 0)
      return false;
  return weight.getDimSize(0) % groups == 0;
}

/// The convolution as one generic, the library call's meaning: loops
/// (n, o, oh, ow, c, kh, kw), the weight [O, C/G, kH, kW] its input, the
/// [N, O, H', W'] f32 output its init, and the input read in the body at
/// (n, o / (O/G) * C/G + c, oh * s + kh * d - p, ...), zero outside it.
/// It carries #tgc_gpu.conv; tgc-gpu-select-strategy keeps the mark (a
/// cuDNN call) or drops it (a kernel then runs the generic).
Value buildLibraryConv(OpBuilder &b, Location loc, Operation *source,
                       Value input, Value weight,
                       ArrayRef<OpFoldResult> inSizes,
                       ArrayRef<OpFoldResult> outSpatial,
                       ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                       ArrayRef<int64_t> dilation, int64_t groups) {
  MLIRContext *ctx = b.getContext();
  auto weightType = cast<RankedTensorType>(weight.getType());
  Type f32 = b.getF32Type();
  int64_t perGroupOut = weightType.getDimSize(0) / groups;
  int64_t perGroupIn = weightType.getDimSize(1);
  ConvolutionLoops loops = convolutionLoops(
      b, loc, inSizes[0], b.getIndexAttr(weightType.getDimSize(0)), outSpatial,
      f32);
  Value extents[2] = {
      getValueOrCreateConstantIndexOp(b, loc, inSizes[2]),
      getValueOrCreateConstantIndexOp(b, loc, inSizes[3])};
  // The body reads channel o / (O/G) * C/G + c: a `?` channel count must be
  // G times the weight's, or those reads would leave the input.
  if (isa<Value>(inSizes[1]))
    cf::AssertOp::create(
        b, loc,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, cast<Value>(inSizes[1]),
            arith::ConstantIndexOp::create(b, loc, groups * perGroupIn)),
        "tgc.conv2d: the input channels are not groups times the weight's");
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{loops.init.getType()}, ValueRange{weight},
      ValueRange{loops.init}, ArrayRef<AffineMap>{loops.weight, loops.out},
      loops.iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        auto index = [&](int64_t dim) {
          return linalg::IndexOp::create(nb, nl, dim).getResult();
        };
        Value channel = groupChannel(nb, nl, index(1), perGroupOut, perGroupIn,
                                     index(4), groups);
        Value v = readWindowElement(
            nb, nl, input, index(0), channel, {index(2), index(3)},
            {index(5), index(6)}, stride, dilation, padding, extents,
            createScalarConstant(nb, nl, f32, 0.0), /*checkUnpadded=*/false);
        Value product = arith::MulFOp::create(nb, nl, v, args[0]);
        linalg::YieldOp::create(
            nb, nl, arith::AddFOp::create(nb, nl, args[1], product).getResult());
      });
  generic->setAttr(
      tgc_gpu::TgcGpuDialect::kConvAttrName,
      tgc_gpu::ConvAttr::get(ctx, stride, padding, dilation, groups,
                             source->hasAttr(kTf32AttrName), "forward"));
  return generic.getResult(0);
}

struct Conv2dLowering : OpRewritePattern<Conv2dOp> {
  Conv2dLowering(MLIRContext *ctx, const ConvolutionLowering &options)
      : OpRewritePattern(ctx), options(options) {}
  ConvolutionLowering options;
  LogicalResult matchAndRewrite(Conv2dOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = op.getInput(), weight = op.getWeight();
    bool unbatched = op.getInput().getType().getRank() == 3;
    if (unbatched)
      input = expandUnitDims(rewriter, loc, input, {true, false, false, false});
    auto inType = cast<RankedTensorType>(input.getType());
    auto weightType = cast<RankedTensorType>(weight.getType());
    Type element = inType.getElementType();
    Type accType = getAccumulatorType(element);
    ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(),
                      dilation = op.getDilation();
    int64_t groups = static_cast<int64_t>(op.getGroups());
    int64_t kernel[2] = {weightType.getDimSize(2), weightType.getDimSize(3)};
    if (ShapedType::isDynamic(kernel[0]) || ShapedType::isDynamic(kernel[1]))
      return rewriter.notifyMatchFailure(op, "dynamic kernel size");

    SmallVector<OpFoldResult> inSizes = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> outSpatial;
    for (int i = 0; i < 2; ++i) {
      FailureOr<WindowSize> size = getWindowSize(
          rewriter, loc, inSizes[2 + i], kernel[i], stride[i], padding[i],
          dilation[i], /*ceilMode=*/false, "tgc.conv2d");
      if (failed(size))
        return rewriter.notifyMatchFailure(op, "the kernel does not fit");
      outSpatial.push_back(size->output);
    }
    // im2col unless both output sizes are `?`: expand-strided-metadata
    // (MLIR 22) crashes on the memref.expand_shape of one `?` size into two,
    // which the product's [N, O, H' W'] -> [N, O, H', W'] would become.
    bool bothDynamic =
        isa<Value>(outSpatial[0]) && isa<Value>(outSpatial[1]);
    bool im2col = groups == 1 && !bothDynamic;
    bool onLibrary =
        options.library && canRunOnLibrary(inType, weightType, groups);
    // Direct where the vectors along an output row read consecutive
    // inputs, unless an image has few outputs (the batch in an im2col
    // product's columns fills register tiles better there).
    std::optional<int64_t> outH = getConstantIntValue(outSpatial[0]),
                           outW = getConstantIntValue(outSpatial[1]);
    bool fewOutputs = outH && outW && *outH * *outW < kBatchColumnsBelow;
    bool direct = options.direct && !onLibrary && groups == 1 &&
                  stride[1] == 1 && (element.isF32() || element.isF64()) &&
                  accType == element && !fewOutputs;
    // With im2col-pads, the patches read the input itself, zero outside
    // it, where its spatial sizes are static and not 0 (a clamped read is
    // then in bounds): no padded copy.
    bool foldPad = im2col && !direct && options.im2colPads &&
                   (padding[0] != 0 || padding[1] != 0) &&
                   llvm::all_of(inType.getShape().take_back(2), [](int64_t s) {
                     return !ShapedType::isDynamic(s) && s > 0;
                   });
    Value zeroElement = createScalarConstant(rewriter, loc, element, 0.0);
    Value padded =
        foldPad || onLibrary
            ? input
            : padSpatial(rewriter, loc, input, padding,
                         {rewriter.getIndexAttr(padding[0]),
                          rewriter.getIndexAttr(padding[1])},
                         zeroElement);

    Value zero = createScalarConstant(rewriter, loc, accType, 0.0);
    auto strides = rewriter.getI64TensorAttr(stride);
    auto dilations = rewriter.getI64TensorAttr(dilation);
    OpFoldResult n = inSizes[0];
    OpFoldResult o = tensor::getMixedSize(rewriter, loc, weight, 0);
    Value product;
    // The batch in the product's columns where an image's outputs are few.
    bool wide = options.batchColumns && im2col && !foldPad && fewOutputs;
    if (onLibrary) {
      product = buildLibraryConv(rewriter, loc, op, input, weight, inSizes,
                                 outSpatial, stride, padding, dilation, groups);
    } else if (direct) {
      product = buildDirectConv(rewriter, loc, padded, weight, n, o, outSpatial,
                                stride, dilation, accType);
    } else if (im2col) {
      product = buildIm2colConv(rewriter, loc, op, padded,
                                foldPad ? input : Value(), padding, weight, n,
                                o, outSpatial, kernel, stride, dilation,
                                accType, wide);
    } else if (groups == 1) {
      SmallVector<OpFoldResult> outSizes{n, o, outSpatial[0], outSpatial[1]};
      SmallVector<int64_t> shape = llvm::map_to_vector(outSizes, staticSize);
      auto outType = RankedTensorType::get(shape, accType);
      Value init = createFilled(rewriter, loc, outType, outSizes, zero);
      product =
          linalg::Conv2DNchwFchwOp::create(rewriter, loc, TypeRange{outType},
                                           ValueRange{padded, weight},
                                           ValueRange{init}, strides, dilations)
              .getResult(0);
    } else {
      // [N, C, H, W] -> [N, G, C/G, H, W]; [O, C/G, kH, kW] ->
      // [G, O/G, C/G, kH, kW]; the result [N, G, O/G, H', W'] -> [N, O, ..].
      auto perGroup = [&](Value tensor, int64_t dim) -> OpFoldResult {
        auto type = cast<RankedTensorType>(tensor.getType());
        if (!type.isDynamicDim(dim))
          return rewriter.getIndexAttr(type.getDimSize(dim) / groups);
        Value size = tensor::DimOp::create(rewriter, loc, tensor, dim);
        return arith::DivUIOp::create(
                   rewriter, loc, size,
                   arith::ConstantIndexOp::create(rewriter, loc, groups))
            .getResult();
      };
      OpFoldResult cg = weightType.isDynamicDim(1)
                            ? perGroup(input, 1)
                            : rewriter.getIndexAttr(weightType.getDimSize(1));
      OpFoldResult og = perGroup(weight, 0);
      OpFoldResult g = rewriter.getIndexAttr(groups);
      auto paddedType = cast<RankedTensorType>(padded.getType());
      if (paddedType.isDynamicDim(1) && !weightType.isDynamicDim(1)) {
        // The channels are groups x the weight's (static) channels: check,
        // then make them static so that they split into static sizes.
        int64_t channels = groups * weightType.getDimSize(1);
        Value actual = tensor::DimOp::create(rewriter, loc, padded, 1);
        Value expected =
            arith::ConstantIndexOp::create(rewriter, loc, channels);
        cf::AssertOp::create(
            rewriter, loc,
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                  actual, expected),
            "tgc.conv2d: the input channels are not groups times the "
            "weight's");
        SmallVector<int64_t> shape(paddedType.getShape());
        shape[1] = channels;
        padded = tensor::CastOp::create(rewriter, loc, paddedType.clone(shape),
                                        padded);
      }
      SmallVector<OpFoldResult> paddedSizes = getDims(rewriter, loc, padded);
      SmallVector<OpFoldResult> inGroupSizes{paddedSizes[0], g, cg,
                                             paddedSizes[2], paddedSizes[3]};
      Value groupedInput = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(llvm::map_to_vector(inGroupSizes, staticSize),
                                element),
          padded, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}},
          inGroupSizes);
      SmallVector<OpFoldResult> weightGroupSizes{
          g, og, cg, rewriter.getIndexAttr(kernel[0]),
          rewriter.getIndexAttr(kernel[1])};
      Value groupedWeight = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(
              llvm::map_to_vector(weightGroupSizes, staticSize), element),
          weight, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}},
          weightGroupSizes);
      SmallVector<OpFoldResult> outSizes{n, g, og, outSpatial[0],
                                         outSpatial[1]};
      auto outType = RankedTensorType::get(
          llvm::map_to_vector(outSizes, staticSize), accType);
      Value init = createFilled(rewriter, loc, outType, outSizes, zero);
      Value grouped = linalg::Conv2DNgchwGfchwOp::create(
                          rewriter, loc, TypeRange{outType},
                          ValueRange{groupedInput, groupedWeight},
                          ValueRange{init}, strides, dilations)
                          .getResult(0);
      product = tensor::CollapseShapeOp::create(
          rewriter, loc, grouped,
          SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    }

    Value result;
    if (Value bias = op.getBias()) {
      AffineMap biasMap = AffineMap::get(4, 0, getAffineDimExpr(1, ctx));
      result = buildMapOverInput(
          rewriter, loc, product, bias, biasMap, element,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return arith::AddFOp::create(b, l, args[0],
                                         convertScalar(b, l, args[1], accType));
          });
    } else {
      result = convertTensor(rewriter, loc, product, element);
    }
    if (unbatched)
      result =
          collapseUnitDims(rewriter, loc, result, {true, false, false, false});
    rewriter.replaceOp(op, castToType(rewriter, loc, result, op.getType()));
    return success();
  }
};

} // namespace

void mlir::tgc::populateTgcConvolutionToLinalgPatterns(
    RewritePatternSet &patterns, const ConvolutionLowering &options) {
  patterns.add<Conv2dLowering>(patterns.getContext(), options);
}
