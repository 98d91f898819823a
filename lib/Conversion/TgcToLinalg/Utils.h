//===- Utils.h - shared helpers of the tgc-to-linalg patterns ---*- C++ -*-===//

#ifndef TGC_LIB_CONVERSION_TGCTOLINALG_UTILS_H
#define TGC_LIB_CONVERSION_TGCTOLINALG_UTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::tgc {

/// The sizes of a ranked tensor value: static ones as attributes, `?` ones
/// through tensor.dim.
SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value tensor);

/// tensor.empty of `type`, whose `?` sizes are taken in order from `dims`
/// (all sizes of the result, static ones ignored).
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> dims);

/// The type element arithmetic runs in: f32 for f16 and bf16 (PyTorch's
/// "opmath" on CPU), the type itself otherwise.
Type getOpmathType(Type elementType);

/// Converts a scalar as PyTorch's Tensor.to(dtype) does: float to int
/// truncates toward zero, to i1 is `x != 0`, i1 to numbers is 0/1, integer
/// narrowing wraps, integers are signed.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to);

/// A linalg.generic computing `body` elementwise over `operands`, which
/// broadcast to `resultType` (aligned right; an operand size broadcasts
/// only when it is statically 1). The result's `?` sizes are taken from the
/// first operand that has a `?` or non-1 size in that dimension. `body`
/// receives the operands' scalars (already converted to `computeType`
/// when given) and returns the result scalar in `computeType` (or the
/// result element type), which is converted to the result element type.
Value buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    ValueRange operands, Type computeType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// A scalar constant of `type` (integer or float) holding `value`.
Value createScalarConstant(OpBuilder &b, Location loc, Type type,
                           double value);

//===----------------------------------------------------------------------===//
// Reductions, contractions and windows (Reduction.cpp, LinearAlgebra.cpp,
// NN.cpp)
//===----------------------------------------------------------------------===//

/// `v` as `type`: a tensor.cast when the static sizes differ (an op's
/// result type may be more precise than the sizes a lowering derives from
/// the operands).
Value castToType(OpBuilder &b, Location loc, Value v, Type type);

/// Where a reduction over `elementType` accumulates: f32 for f16, bf16 and
/// f32, f64 for f64, the element type itself for integers (wrap-around).
Type getAccumulatorType(Type elementType);
/// The accumulator of sum/mean/var/norm reductions: f64 for f32 (a sum of
/// 10^6 f32 terms in f32 loses 3-4 digits), f32 for f16/bf16, the type
/// itself otherwise. Matmul-like contractions keep getAccumulatorType.
Type getReductionAccumulatorType(Type elementType);

/// A contraction init[...] += lhs[...] * rhs[...] over `maps` and
/// `iterators` (a linalg.generic), the operands converted to the element
/// type of `init` first (float or integer arithmetic after it).
Value buildMulAddContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             Value init, ArrayRef<AffineMap> maps,
                             ArrayRef<utils::IteratorType> iterators);

/// buildMulAddContraction into a zero-filled tensor of `shape` (`?` sizes
/// from `sizes`) in `accType`, reducing over the last loop of `maps` (every
/// other loop parallel).
Value buildMulAddReduction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                           ArrayRef<int64_t> shape,
                           ArrayRef<OpFoldResult> sizes, Type accType,
                           ArrayRef<AffineMap> maps);

/// tensor.empty of `type` (`?` sizes from `dims`, as createEmpty) filled
/// with the scalar `value` (linalg.fill).
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> dims, Value value);

/// -inf (`lowest`) or +inf for floats, the signed minimum or maximum for
/// integers.
Value createExtremeValue(OpBuilder &b, Location loc, Type type, bool lowest);

/// An index value as a scalar of integer or float `type` (signed).
Value indexToScalar(OpBuilder &b, Location loc, Value index, Type type);

/// The elementwise conversion of a tensor to `elementType` (convertScalar).
Value convertTensor(OpBuilder &b, Location loc, Value tensor, Type elementType);

/// The affine map from `select.size()` dims to those dims `d` with
/// `select[d]`, in order.
AffineMap getSelectedDimsMap(MLIRContext *ctx, ArrayRef<bool> select);

/// The product of the sizes `d` of `tensor` with `select[d]`, as an index.
Value getSelectedSizesProduct(OpBuilder &b, Location loc, Value tensor,
                              ArrayRef<bool> select);

/// A linalg.generic reducing the dims `d` of `input` with `reduced[d]`. Its
/// inputs are `input` and `keptInputs` (tensors over the kept dims only,
/// such as an earlier reduction's result); it has one output per scalar of
/// `inits`, over the kept dims, of that scalar's type and initialized to
/// it. `body` receives the scalars of the inputs followed by the
/// accumulators and returns the new accumulators. Returns the outputs.
SmallVector<Value> buildReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<bool> reduced,
    ValueRange keptInputs, ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body);

/// A linalg.generic over the shape of `input` (identity map) whose further
/// inputs `extraInputs` are indexed by `extraMaps` (from the input's dims),
/// producing element type `resultElement`. `body` receives the scalars of
/// all inputs and returns the result scalar (converted to
/// `resultElement` with convertScalar).
Value buildMapOverInput(
    OpBuilder &b, Location loc, Value input, ValueRange extraInputs,
    ArrayRef<AffineMap> extraMaps, Type resultElement,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// The reassociation that collapses the dims `d` with `unit[d]` (static
/// size 1) into their neighbours: each joins the next kept dim, trailing
/// ones the last kept dim. Empty when every dim is a unit dim.
SmallVector<ReassociationIndices> getUnitDimsReassociation(ArrayRef<bool> unit);

/// `value` with size-1 dims inserted where `unit[d]` (a result of rank
/// `unit.size()`): tensor.expand_shape (keepdim, 1-D matmul operands).
Value expandUnitDims(OpBuilder &b, Location loc, Value value,
                     ArrayRef<bool> unit);

/// `value` without its static size-1 dims `d` with `unit[d]`:
/// tensor.collapse_shape.
Value collapseUnitDims(OpBuilder &b, Location loc, Value value,
                       ArrayRef<bool> unit);

/// Broadcasts the leading dims of several operands (PyTorch batch
/// dimensions): `operands[i]` contributes its first `leadingRanks[i]` dims,
/// aligned right. A size stretches only when it is statically 1. Fills the
/// static shape and the sizes (`?` ones through tensor.dim of the first
/// operand with a `?` there) of the broadcast dims.
void broadcastLeadingDims(OpBuilder &b, Location loc, ValueRange operands,
                          ArrayRef<int64_t> leadingRanks,
                          SmallVectorImpl<int64_t> &shape,
                          SmallVectorImpl<OpFoldResult> &sizes);

/// Affine exprs indexing the first `leadingRank` dims of an operand of
/// type `type` within `batchShape` (the broadcast batch dims, loop dims 0 ..
/// batchShape.size() - 1): aligned right, static-1 sizes that stretch are
/// the constant 0.
SmallVector<AffineExpr> getBroadcastBatchExprs(MLIRContext *ctx,
                                               RankedTensorType type,
                                               int64_t leadingRank,
                                               ArrayRef<int64_t> batchShape);

/// Batched matrix product with broadcasting batch dims: `lhs [..., n, k]`
/// times `rhs [..., k, m]` (`rhs [..., m, k]` when `transposeRhs`), as a
/// linalg.generic accumulating in `accType` (operands converted to it).
/// Returns `[batch..., n, m]` of `accType`.
Value buildBroadcastBatchMatmul(OpBuilder &b, Location loc, Value lhs,
                                Value rhs, bool transposeRhs, Type accType);

/// cf.assert that every size `d` of `tensor` with `select[d]` and `?` in the
/// type is non-zero (static zeros are the caller's business).
void assertDynamicSizesNonZero(OpBuilder &b, Location loc, Value tensor,
                               ArrayRef<bool> select, StringRef message);

/// An i1 that is true when `predicate` (an i1 of one element) holds for
/// every element of `tensor`, and true for an empty tensor: a linalg.generic
/// that reduces over every dimension, then tensor.extract. For the
/// data-dependent checks (cf.assert) that precede a computation.
Value buildAllOf(OpBuilder &b, Location loc, Value tensor,
                 function_ref<Value(OpBuilder &, Location, Value)> predicate);

/// The product of `dims` as an index value (1 for none).
Value buildNumElements(OpBuilder &b, Location loc,
                       ArrayRef<OpFoldResult> dims);

/// `idx` (index) clamped to [0, size - 1], so that a load at it stays in
/// bounds whenever size > 0.
Value clampIndex(OpBuilder &b, Location loc, Value idx, Value size);

/// The output size of a window op along one spatial dim of size `input`
/// (PyTorch's conv / pooling_output_shape), and the padded input size the
/// windows read (`input + 2 * padding`, more in ceil_mode when the last
/// window reaches past it). A `?` input gets a cf.assert that the window
/// fits; a static one that does not fit fails.
struct WindowSize {
  OpFoldResult output;
  OpFoldResult highPadding;
};
FailureOr<WindowSize> getWindowSize(OpBuilder &b, Location loc,
                                    OpFoldResult input, int64_t kernel,
                                    int64_t stride, int64_t padding,
                                    int64_t dilation, bool ceilMode,
                                    StringRef opName);

/// `input` [N, C, H, W] padded by `padding` before and `high` after H and W
/// with `value`; unchanged when there is nothing to pad.
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> padding, ArrayRef<OpFoldResult> high,
                 Value value);

/// Static shape of an OpFoldResult size.
int64_t staticSize(OpFoldResult size);

/// `v` seen through the tgc.fusion_group whose body it is an argument of:
/// the group's input it stands for (else `v`).
Value outsideFusionGroup(Value v);

/// Inside a linalg body: `input` [N, C, H, W] at (n, c, out[i] * stride[i]
/// + k[i] * dilation[i] - padding[i]) for i = 0, 1 (`out` and `k` are loop
/// indices, `extents` H and W), the position clamped into the input and
/// `outside` where it is not: a padded window's read without a padded
/// copy (im2col-pads, library convolutions). Without `checkUnpadded` a dim
/// of padding 0 is read unchecked (its windows stay inside the input, as
/// a floor-mode output size guarantees).
Value readWindowElement(OpBuilder &b, Location loc, Value input, Value n,
                        Value c, ArrayRef<Value> out, ArrayRef<Value> k,
                        ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation,
                        ArrayRef<int64_t> padding, ArrayRef<Value> extents,
                        Value outside, bool checkUnpadded = true);

/// A grouped convolution's channel on the other side of a loop's:
/// (`index` / `perGroup`) * `otherPerGroup` + `within` (the group's first
/// channel there, plus the position within it), or `within` with one
/// group. The forward reads input channel (o / (O/G)) * C/G + c; the
/// weight's gradient the same; index values.
Value groupChannel(OpBuilder &b, Location loc, Value index, int64_t perGroup,
                   int64_t otherPerGroup, Value within, int64_t groups);

} // namespace mlir::tgc

#endif // TGC_LIB_CONVERSION_TGCTOLINALG_UTILS_H
