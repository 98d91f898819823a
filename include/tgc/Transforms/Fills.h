//===- Fills.h - Which linalg ops write one scalar everywhere -*- C++ -*-===//
//
// A fill writes one scalar to every element of its output: linalg.fill, or
// its generalized form, an all-parallel linalg.generic whose one input is a
// scalar (or a rank-0 tensor or memref) and whose body yields it. Kernel
// forming (CPU and GPU) folds fills into the kernels that start from them;
// tgc-clone-shared-fills gives each accumulator a fill of its own.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_FILLS_H
#define TGC_TRANSFORMS_FILLS_H

#include "mlir/IR/Operation.h"

namespace mlir::tgc {

/// Whether `op` is a linalg.fill or a generic that writes its one scalar
/// input to every element of its one output (tensors or buffers).
bool isScalarFill(Operation *op);

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_FILLS_H
