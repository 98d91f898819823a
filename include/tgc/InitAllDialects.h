//===- InitAllDialects.h - every dialect TGC's tools know ------*- C++ -*-===//

#ifndef TGC_INITALLDIALECTS_H
#define TGC_INITALLDIALECTS_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tgc {

/// The three TGC dialects.
void registerTgcDialects(DialectRegistry &registry);

/// The TGC dialects plus the upstream dialects TGC's pipelines use (func,
/// arith, math, tensor, linalg, bufferization, memref, scf, vector, gpu,
/// nvvm, omp, llvm, affine, index, cf) with their interface models
/// (bufferization, value bounds, tiling, convert-to-llvm, ...). The drivers
/// register every upstream dialect, as mlir-opt does, since the interface
/// models are registered together with them.
void registerAllTgcDialects(DialectRegistry &registry);

} // namespace mlir::tgc

#endif // TGC_INITALLDIALECTS_H
