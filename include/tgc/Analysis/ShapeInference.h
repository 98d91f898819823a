//===- ShapeInference.h - symbolic shape propagation -----------*- C++ -*-===//
//
// The context a symbolic shape function runs in. A driver (the
// tgc-infer-shapes pass, or a test) walks a function in order; for each op
// implementing SymbolicShapeOpInterface it sets the current op and calls the
// op's shape function, which reads its operands' symbolic shapes, sets its
// results' shapes, and requires the constraints it needs to be well defined.
//
// A shape function never turns a symbolic size into a number: sizes are
// expressions over symbols, and what the op needs becomes a constraint
// (`size(dim) >= k` for topk), not an equality with the example value.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_ANALYSIS_SHAPEINFERENCE_H
#define TGC_ANALYSIS_SHAPEINFERENCE_H

#include "tgc/Analysis/ShapeEnv.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

namespace mlir::tgc {

using SymShape = SmallVector<AffineExpr, 4>;

class ShapeInferenceContext {
public:
  explicit ShapeInferenceContext(ShapeEnv &env) : env(env) {}

  ShapeEnv &getEnv() { return env; }
  MLIRContext *getContext() { return env.getContext(); }

  /// The op whose shape function runs; constraints are attributed to it.
  void setCurrentOp(Operation *op) { currentOp = op; }
  Operation *getCurrentOp() const { return currentOp; }

  /// Symbolic shape of a ranked tensor value: the one recorded for it, or,
  /// for a value never seen, one built from its type (static sizes as
  /// constants, each `?` a fresh unbacked size, recorded).
  /// Returned by value: recording other shapes may move the storage.
  SymShape getShape(Value v);
  AffineExpr getDim(Value v, int64_t dim) { return getShape(v)[dim]; }
  bool hasShape(Value v) const { return shapes.count(v); }

  /// Symbolic value of an `index` (or integer) value: constants, tensor.dim
  /// of a value with a known shape, and arith/index add, sub, mul,
  /// floordiv, ceildiv, rem, min, max of such values; anything else is a
  /// fresh unbacked size (recorded, so the same value maps to the same
  /// expression).
  AffineExpr getIndexValue(Value v);

  /// Records the symbolic value of an index or integer value (e.g. a
  /// scalar function argument).
  void setIndexValue(Value v, AffineExpr value) { indexValues[v] = value; }

  /// Records the shape of a result (canonicalized). The driver checks it
  /// against the result's type afterwards.
  void setShape(Value v, ArrayRef<AffineExpr> shape);

  /// Requires `lhs kind rhs` for the current op to be well defined.
  /// Returns failure, with an error at the op, when it can never hold; a
  /// constraint that always holds is dropped; otherwise it is recorded in
  /// the ShapeEnv and in getRequired().
  LogicalResult require(ConstraintKind kind, AffineExpr lhs, AffineExpr rhs,
                        const Twine &reason);

  struct Required {
    SizeConstraint constraint;
    Operation *op;
  };
  /// Constraints recorded through require(), in order.
  ArrayRef<Required> getRequired() const { return required; }

  /// PyTorch broadcasting of symbolic shapes (aligned right). A size
  /// broadcasts only when it is statically 1: two sizes that may differ
  /// require `a == b` (an equality becomes a substitution). A `?` size that
  /// is 1 at run time therefore fails a guard and gets its own
  /// specialization rather than a loop that tests it on every element.
  FailureOr<SymShape> broadcast(ArrayRef<ArrayRef<AffineExpr>> shapes,
                                StringRef what);

private:
  ShapeEnv &env;
  Operation *currentOp = nullptr;
  DenseMap<Value, SymShape> shapes;
  DenseMap<Value, AffineExpr> indexValues;
  SmallVector<Required> required;
};

} // namespace mlir::tgc

#endif // TGC_ANALYSIS_SHAPEINFERENCE_H
