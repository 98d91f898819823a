//===- Passes.h - Memory passes ---------------------------------*- C++ -*-===//
//
// Memory: buffers that bufferization may share, and one arena per function. Declared in Passes.td beside this file.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_MEMORY_PASSES_H
#define TGC_TRANSFORMS_MEMORY_PASSES_H

#include "tgc/Transforms/PassDependencies.h"

namespace mlir::tgc {

#define GEN_PASS_DECL
#include "tgc/Transforms/Memory/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tgc/Transforms/Memory/Passes.h.inc"

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_MEMORY_PASSES_H
