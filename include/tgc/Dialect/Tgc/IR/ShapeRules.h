//===- ShapeRules.h - PyTorch shape rules on static/dynamic shapes -*- C++ -*-//
//
// The shape rules of PyTorch operators (broadcasting, matmul, reductions,
// convolution and pooling output sizes) over shapes whose unknown sizes are
// ShapedType::kDynamic. Verifiers, result type inference and the unit tests
// share this one implementation. Errors are returned as text so that the
// rules are usable (and testable) without an MLIR context.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TGC_IR_SHAPERULES_H
#define TGC_DIALECT_TGC_IR_SHAPERULES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tgc {

using Shape = SmallVector<int64_t>;

/// Outcome of a shape rule: the shape, or why there is none.
struct ShapeResult {
  std::optional<Shape> shape;
  std::string error;

  static ShapeResult ok(Shape s) { return {std::move(s), {}}; }
  static ShapeResult fail(std::string why) {
    return {std::nullopt, std::move(why)};
  }
  explicit operator bool() const { return shape.has_value(); }
};

/// PyTorch broadcasting of any number of shapes (aligned right, size 1
/// stretches). A `?` against a static size n != 1 yields n (the `?` must be
/// n or 1 at run time); `?` against `?` yields `?`.
ShapeResult broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes);

/// torch.matmul's result shape for any ranks >= 1.
ShapeResult matmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs);

/// Result shape of reducing `dims` of `input` (dims distinct, in range).
ShapeResult reduceShape(ArrayRef<int64_t> input, ArrayRef<int64_t> dims,
                        bool keepdim);

/// Output size of a convolution or pooling window along one dimension, or
/// kDynamic when the input size is dynamic. Returns std::nullopt and sets
/// `error` when the window does not fit.
std::optional<int64_t> windowOutputSize(int64_t input, int64_t kernel,
                                        int64_t stride, int64_t padding,
                                        int64_t dilation, bool ceilMode,
                                        std::string &error);

/// Size of x[start:end:step] along a dimension of size `size` (may be
/// kDynamic) with Python's negative-index and clamping rules.
int64_t sliceSize(int64_t size, int64_t start, int64_t end, int64_t step);

/// Two sizes that may be equal at run time (equal, or at least one `?`).
inline bool sizesCompatible(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

/// Formats a shape as PyTorch prints it: [4, ?, 8].
std::string formatShape(ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Helpers for InferTypeOpInterface implementations.
//===----------------------------------------------------------------------===//

/// Result types that refine the inferred ones are accepted: same element
/// type and rank, and every size equal or `?` on one side.
bool areCompatibleTensorTypes(TypeRange inferred, TypeRange actual);

/// Elementwise ops: operands share an element type and broadcast;
/// `resultElement` (or the operands' element type when null) is the result's.
LogicalResult inferElementwiseResult(std::optional<Location> loc,
                                     ArrayRef<Type> operandTypes,
                                     Type resultElement,
                                     SmallVectorImpl<Type> &types);

/// Reductions over `dims`; the result element type is `resultElement` or the
/// input's.
LogicalResult inferReduceResult(std::optional<Location> loc, Type inputType,
                                ArrayRef<int64_t> dims, bool keepdim,
                                Type resultElement,
                                SmallVectorImpl<Type> &types);

/// A 2-entry window attribute (kernel, stride, padding, dilation: H, W)
/// whose entries are at least `minimum`.
LogicalResult checkWindowPair(std::optional<Location> loc, StringRef name,
                              ArrayRef<int64_t> values, int64_t minimum);

} // namespace mlir::tgc

#endif // TGC_DIALECT_TGC_IR_SHAPERULES_H
