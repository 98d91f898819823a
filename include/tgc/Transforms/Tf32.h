//===- Tf32.h - f32 products that may run on TF32 tensor cores --*- C++ -*-===//
//
// tgc-mark-tf32 (Graph/Passes.td) marks them; tgc-decompose,
// tgc-to-linalg and tgc-gpu-select-strategy carry the mark to the GEMM.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_TF32_H
#define TGC_TRANSFORMS_TF32_H

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::tgc {

/// The unit attribute on a tgc op, then on its contraction, that lets the
/// product round its f32 inputs to TF32.
inline constexpr llvm::StringLiteral kTf32AttrName = "tgc.tf32";

/// Which of PyTorch's flags governs an op's TF32 use.
enum class Tf32Kind { None, Matmul, Convolution };

/// The flag that governs `op`: Matmul for an f32 tgc.matmul, tgc.bmm or
/// tgc.linear, Convolution for an f32 tgc.conv2d, None otherwise.
Tf32Kind getTf32Kind(Operation *op);

/// The flags some op under `root` is governed by, before tgc-decompose:
/// "", "matmuls", "convolutions" or "matmuls convolutions" (what a compiled
/// function's TF32 guards must check).
std::string tf32Kinds(Operation *root);

/// Sets kTf32AttrName on the op defining `product` when `source` has it.
inline void copyTf32Mark(Operation *source, Value product) {
  if (Operation *def = product.getDefiningOp())
    if (source->hasAttr(kTf32AttrName))
      def->setAttr(kTf32AttrName, source->getAttr(kTf32AttrName));
}

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_TF32_H
