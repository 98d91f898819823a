//===- TgcToLinalg.h - tgc to linalg on tensors -----------------*- C++ -*-===//
//
// Lowering of the tgc dialect to linalg on tensors (plus tensor, arith, math
// and, for topk and cholesky, scf), split by op family as torch-mlir splits
// its TorchToLinalg conversion. Each populate function adds the patterns of
// one family; the tgc-to-linalg pass uses them all.
//
// Conventions every pattern follows (see lib/Conversion/TgcToLinalg/Utils.h):
// * `?` sizes come from tensor.dim of operands, never from the result type.
// * A size broadcasts only when it is statically 1 (the guards make every
//   other broadcast an equality).
// * f16/bf16 arithmetic runs in f32 ("opmath", as PyTorch does on CPU) and
//   rounds once at the end; float reductions accumulate in f32 (f64 for
//   f64), integer ones in the element type with wrap-around.
// * Preconditions that depend on data (an index in range, a non-zero
//   integer divisor, a positive-definite matrix) are checked with cf.assert
//   at the top level of the function, on an i1 computed before the
//   computation (or, for cholesky, a rank-0 flag its loops clear), with a
//   message naming the op.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CONVERSION_TGCTOLINALG_TGCTOLINALG_H
#define TGC_CONVERSION_TGCTOLINALG_TGCTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tgc {

/// A unit attribute on the outer scf.for loops of a sequential lowering
/// (topk's rows, cholesky's batch): their iterations may run in any order
/// and at once. They write disjoint elements, except a rank-0 check flag
/// that they only ever set to false. tgc-gpu-form-kernels runs such loops
/// as one thread per iteration; without it, a loop runs on one thread.
inline constexpr llvm::StringLiteral kParallelLoopAttrName = "tgc.parallel";

/// A unit attribute on the scf.for loops of tgc.scatter_add's lowering whose
/// iterations may write the same element: they may run at once only if
/// each read-modify-write of the result (a load, an add and a store of the
/// same element) is made atomic. tgc-gpu-form-kernels does that for the
/// element types with atomic adds; elsewhere the loops run in order.
inline constexpr llvm::StringLiteral kAtomicAddLoopAttrName =
    "tgc.parallel_atomic_add";

/// A unit attribute on the cf.assert of an index range check (gather,
/// index_select, embedding, scatter_add): the launch plan's `index` checks,
/// which the GPU runtime's device asserts run on the device.
inline constexpr llvm::StringLiteral kIndexCheckAttrName = "tgc.index_check";

/// A unit attribute on a softmax's division by its row sum, a sum of
/// `exp(x - max)` that is at least 1 (the max's own term; NaN where the
/// row has a NaN or infinity): its reciprocal is a normal number, so the
/// CPU may multiply by it (tgc-reciprocal-divisions).
inline constexpr llvm::StringLiteral kSoftmaxSumDivisionAttrName =
    "tgc.softmax_sum_division";

/// Unary and binary math, comparisons, where, convert, clamp, gelu, silu.
void populateTgcElementwiseToLinalgPatterns(RewritePatternSet &patterns);
/// constant, full, iota, reshape, permute, expand, slice, concat, squeeze,
/// unsqueeze, pad.
void populateTgcShapeToLinalgPatterns(RewritePatternSet &patterns);
/// gather, index_select, embedding, scatter_add. With `checksInKernels`
/// (tgc-to-linalg's `index-checks-in-kernels`: the GPU's device asserts),
/// a gather's, index_select's or embedding's index range check is a
/// cf.assert inside its generic's body, on each index it reads, with the
/// op's location in the message, instead of an all-of reduction and a
/// cf.assert at the top level (scatter_add keeps the latter).
void populateTgcIndexingToLinalgPatterns(RewritePatternSet &patterns,
                                         bool checksInKernels = false);
/// philox_uniform.
void populateTgcRandomToLinalgPatterns(RewritePatternSet &patterns);
/// sum, mean, amax, amin, var, norm, argmax, argmin, max, min, topk.
void populateTgcReductionToLinalgPatterns(RewritePatternSet &patterns);
/// matmul, bmm, linear, cholesky.
void populateTgcLinearAlgebraToLinalgPatterns(RewritePatternSet &patterns);
/// softmax, log_softmax, layer_norm, rms_norm, scaled_dot_product_attention,
/// max_pool2d, avg_pool2d. With `softmaxExpOnce`, a softmax's
/// exp(x - max) is an elementwise op of its own that the sum and the
/// division read (the CPU's row kernels compute it once per element into a
/// row temporary); without, the sum and the division each compute it.
/// With `padsInPlace` (tgc-to-linalg's `im2col-pads`), a padded max pool
/// over static spatial sizes reads its input at clamped positions instead
/// of a padded copy.
void populateTgcNNToLinalgPatterns(RewritePatternSet &patterns,
                                   bool softmaxExpOnce = false,
                                   bool padsInPlace = false);
/// How conv2d is lowered (tgc-to-linalg's options).
struct ConvolutionLowering {
  /// An im2col convolution's patches read its input with bounds checks
  /// instead of a padded copy (`im2col-pads`).
  bool im2colPads = false;
  /// The f32 convolutions cuDNN can run are one generic marked
  /// #tgc_gpu.conv (`library-convolutions`).
  bool library = false;
  /// An im2col product whose images have fewer than 256 outputs takes the
  /// batch into its columns (`im2col-batch-columns`).
  bool batchColumns = false;
  /// Ungrouped f32/f64 convolutions of stride 1 along the width whose
  /// images have at least 256 outputs are one window contraction over the
  /// padded input, marked `tgc.direct_conv` (`direct-convolutions`).
  bool direct = false;
};

/// The mark of a direct convolution's contraction (loops (n, o, oh, ow,
/// c, kh, kw)): tgc-form-kernels gives its iterations a register tile's
/// output channels.
constexpr llvm::StringLiteral kDirectConvAttrName = "tgc.direct_conv";

/// conv2d, as `options` says.
void populateTgcConvolutionToLinalgPatterns(
    RewritePatternSet &patterns, const ConvolutionLowering &options = {});
/// conv2d_backward_input and conv2d_backward_weight: one generic each,
/// marked #tgc_gpu.conv (backward kinds) for cuDNN with `options.library`.
void populateTgcConvolutionBackwardToLinalgPatterns(
    RewritePatternSet &patterns, const ConvolutionLowering &options = {});

/// Whether `0 <= index < extent` (index values): the bounds check of a
/// read at a computed position, which a select then clamps (an im2col's
/// patches read past their input's edge, a pad rewritten as a generic).
Value createIndexInBounds(OpBuilder &b, Location loc, Value index,
                          Value extent);

/// All of the above.
void populateTgcToLinalgPatterns(RewritePatternSet &patterns,
                                 bool softmaxExpOnce = false,
                                 const ConvolutionLowering &convolutions = {},
                                 bool indexChecksInKernels = false);

} // namespace mlir::tgc

#endif // TGC_CONVERSION_TGCTOLINALG_TGCTOLINALG_H
