//===- LoopExtents.h - Which loops of two generics run equally far -*- C++ -*-===//
//
// Kernel forming fuses generics into one kernel only when their loops run
// over the same extents (the rows of a row kernel, the outputs of a tree
// reduction and its epilogue). Static extents compare as numbers; a dynamic
// extent is traced through the views, reshapes and allocations of buffers
// to the size value it was made from (a memref.dim of a function argument,
// or any other index value), so two extents are equal only when they are
// provably the same size: the same value, or sizes of function arguments
// that the function's guard set checks equal (duck sizing, broadcasts).
// Unknown is unequal: the caller then keeps the generics in separate
// kernels.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_LOOPEXTENTS_H
#define TGC_TRANSFORMS_LOOPEXTENTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <tuple>

namespace mlir::tgc {

/// An extent: a constant, or (a buffer, its dim) / an index value with a
/// dynamic size. Two equal extents are the same size.
struct Extent {
  int64_t size = ShapedType::kDynamic;
  Value value;
  int64_t dim = -1;

  bool isKnown() const { return !ShapedType::isDynamic(size) || value; }
  bool operator==(const Extent &o) const {
    return isKnown() && o.isKnown() &&
           std::tie(size, value, dim) == std::tie(o.size, o.value, o.dim);
  }
  bool operator!=(const Extent &o) const { return !(*this == o); }
};

/// Dimensions of a function's arguments that its guard set checks equal
/// (`tgc_guard.relation eq` between two symbols read from arguments): each
/// (argument, dim) maps to one representative of its class.
class ArgSizeClasses {
public:
  ArgSizeClasses() = default;
  /// The classes of `func`'s guard set (none when it has no guard set).
  explicit ArgSizeClasses(func::FuncOp func);

  /// The representative (argument, dim) of (arg, dim).
  std::pair<int64_t, int64_t> find(int64_t arg, int64_t dim) const;

private:
  void join(std::pair<int64_t, int64_t> a, std::pair<int64_t, int64_t> b);
  llvm::DenseMap<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>
      parent;
};

/// The extent of dimension `dim` of a memref or tensor value.
Extent getDimExtent(Value shaped, int64_t dim,
                    const ArgSizeClasses *classes = nullptr);

/// The extent an index value stands for (a constant, a memref.dim, or the
/// value itself).
Extent getIndexExtent(Value index, const ArgSizeClasses *classes = nullptr);

/// The extent of each loop of a generic, from the first operand dimension
/// its indexing maps index by the loop alone (unknown when none does).
SmallVector<Extent> getLoopExtents(linalg::GenericOp op,
                                   const ArgSizeClasses *classes = nullptr);

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_LOOPEXTENTS_H
