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

} // namespace mlir::tgc

#endif // TGC_LIB_CONVERSION_TGCTOLINALG_UTILS_H
