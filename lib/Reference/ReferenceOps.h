//===- ReferenceOps.h - Pieces shared by the op families --------*- C++ -*-===//
//
// The interpreter's frame (SSA value -> host value), index helpers used by
// every op family, and the entry point of each family: it evaluates the ops
// it knows and answers std::nullopt for the others.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_REFERENCE_REFERENCEOPS_H
#define TGC_LIB_REFERENCE_REFERENCEOPS_H

#include "tgc/Reference/HostTensor.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tgc::ref::eval {

using Dims = SmallVector<int64_t, 4>;

/// Values of one function invocation: tensors and integer/index scalars.
class Frame {
public:
  explicit Frame(MutableArrayRef<HostTensor> args) : args(args) {}

  /// The tensor bound to `v`; the interpreter has checked that every
  /// operand is bound before an op runs.
  const HostTensor &tensor(Value v) const { return tensors.find(v)->second; }
  int64_t scalar(Value v) const { return scalars.find(v)->second; }
  bool hasTensor(Value v) const { return tensors.count(v); }
  bool hasScalar(Value v) const { return scalars.count(v); }
  void setTensor(Value v, HostTensor t) { tensors[v] = std::move(t); }
  void setScalar(Value v, int64_t x) { scalars[v] = x; }

  /// The caller's arguments (out buffers are written here).
  MutableArrayRef<HostTensor> args;

private:
  llvm::DenseMap<Value, HostTensor> tensors;
  llvm::DenseMap<Value, int64_t> scalars;
};

/// The answer of an op family: nullopt when the op is not one of its own.
using EvalResult = std::optional<LogicalResult>;

EvalResult evalCreationOp(Operation *op, Frame &frame);
EvalResult evalElementwiseOp(Operation *op, Frame &frame);
EvalResult evalReductionOp(Operation *op, Frame &frame);
EvalResult evalShapeOp(Operation *op, Frame &frame);
EvalResult evalIndexingOp(Operation *op, Frame &frame);
EvalResult evalLinalgOp(Operation *op, Frame &frame);
EvalResult evalNNOp(Operation *op, Frame &frame);
EvalResult evalScalarOp(Operation *op, Frame &frame);

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The DType of a tensor value's element type (the interpreter has checked
/// that every operand and result has one).
DType dtypeOfValue(Value v);
/// The number of elements of `shape`.
int64_t product(ArrayRef<int64_t> shape);
/// Row-major strides of `shape`.
Dims stridesOf(ArrayRef<int64_t> shape);
/// "[2, 3]".
std::string shapeStr(ArrayRef<int64_t> shape);
/// The multi-index of row-major position `flat`.
void unravel(int64_t flat, ArrayRef<int64_t> shape,
             SmallVectorImpl<int64_t> &index);

/// One dimension of a row-major shape seen as [outer, size, inner] (a 0-d
/// tensor is one element along dim 0).
struct DimView {
  int64_t outer = 1, size = 1, inner = 1;
  DimView(ArrayRef<int64_t> shape, int64_t dim) {
    if (shape.empty())
      return;
    outer = product(shape.take_front(dim));
    size = shape[dim];
    inner = product(shape.drop_front(dim + 1));
  }
  /// Row-major position of (outer o, index j along the dim, inner i).
  int64_t at(int64_t o, int64_t j, int64_t i) const {
    return (o * size + j) * inner + i;
  }
};

/// PyTorch broadcasting of run-time shapes (aligned right, a size 1
/// stretches); an error at `op` naming `what` on a mismatch.
FailureOr<Dims> broadcastShapes(Operation *op,
                                ArrayRef<ArrayRef<int64_t>> shapes,
                                StringRef what = "operands");
/// For each row-major position of `to`, the position of `from` that
/// broadcasting reads (`from` aligned right, size-1 dims stretched).
std::vector<int64_t> broadcastIndices(ArrayRef<int64_t> from,
                                      ArrayRef<int64_t> to);

/// All elements as double / int64.
std::vector<double> toDoubles(const HostTensor &t);
std::vector<int64_t> toInts(const HostTensor &t);
/// A tensor of `dtype` and `shape` from values rounded to it.
HostTensor fromDoubles(DType dtype, ArrayRef<int64_t> shape,
                       ArrayRef<double> values);
HostTensor fromInts(DType dtype, ArrayRef<int64_t> shape,
                    ArrayRef<int64_t> values);

/// A tensor holding the elements of a dense (or dense resource) elements
/// attribute; an error at `op` for other attributes.
FailureOr<HostTensor> tensorFromElements(Operation *op, ElementsAttr attr);

/// Copies element `from` of `src` to element `to` of `dst` (same dtype).
void copyElement(const HostTensor &src, int64_t from, HostTensor &dst,
                 int64_t to);

/// The machine epsilon of a float dtype (PyTorch's finfo.eps).
double machineEpsilon(DType dtype);

/// The shape of `result`'s type with its `?` sizes taken, in order, from
/// the index operands `sizes` (an error at `op` on a count mismatch or a
/// negative size).
FailureOr<Dims> shapeWithDynamicSizes(Operation *op, Value result,
                                      ValueRange sizes, Frame &frame);

} // namespace mlir::tgc::ref::eval

#endif // TGC_LIB_REFERENCE_REFERENCEOPS_H
