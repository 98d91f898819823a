//===- EmptyTensors.h - Tensors known to hold no elements -------*- C++ -*-===//
//
// A static size 0 makes a tensor empty whatever its other sizes. Upstream's
// tiling and bufferization of reshapes divide by such sizes, so the passes
// that keep empty tensors away from them (tgc-form-kernels, tgc-empty-
// reshapes) ask the same question: is there a static 0 in the type, or in
// the type of a value this one is a tensor.cast of (the CPU pipeline with an
// input's size 0 specialized leaves `tensor<1x?x0xf32> to tensor<?x?x?xf32>`).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_EMPTYTENSORS_H
#define TGC_TRANSFORMS_EMPTYTENSORS_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::tgc {

/// Whether `t` is a ranked shaped type with a static size 0.
inline bool hasStaticZeroSize(Type t) {
  auto shaped = dyn_cast<ShapedType>(t);
  return shaped && shaped.hasRank() && llvm::is_contained(shaped.getShape(), 0);
}

/// Whether `v` has a static size 0 in its type or in the type of a value it
/// is a (chain of) tensor.cast of.
inline bool hasStaticZeroSize(Value v) {
  for (auto cast = v.getDefiningOp<tensor::CastOp>(); cast;
       cast = cast.getSource().getDefiningOp<tensor::CastOp>())
    if (hasStaticZeroSize(cast.getSource().getType()))
      return true;
  return hasStaticZeroSize(v.getType());
}

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_EMPTYTENSORS_H
