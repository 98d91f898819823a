//===- InitAllDialects.h - every dialect TGC's tools know ------*- C++ -*-===//

#ifndef TGC_INITALLDIALECTS_H
#define TGC_INITALLDIALECTS_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tgc {

/// The three TGC dialects.
void registerTgcDialects(DialectRegistry &registry);

/// The TGC dialects plus every upstream dialect (and the external models
/// and extensions they need) that TGC's pipelines use: func, arith, math,
/// tensor, linalg, bufferization, memref, scf, vector, gpu, nvvm, omp, llvm,
/// affine, index, cf.
void registerAllTgcDialects(DialectRegistry &registry);

} // namespace mlir::tgc

#endif // TGC_INITALLDIALECTS_H
