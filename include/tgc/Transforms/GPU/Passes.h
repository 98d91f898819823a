//===- Passes.h - GPU passes ------------------------------------*- C++ -*-===//
//
// GPU code generation: kernel strategies, kernels and GEMMs. Declared in Passes.td beside this file.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_GPU_PASSES_H
#define TGC_TRANSFORMS_GPU_PASSES_H

#include "tgc/Transforms/PassDependencies.h"

namespace mlir::tgc {

#define GEN_PASS_DECL
#include "tgc/Transforms/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tgc/Transforms/GPU/Passes.h.inc"

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_GPU_PASSES_H
