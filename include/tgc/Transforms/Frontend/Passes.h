//===- Passes.h - Frontend passes -------------------------------*- C++ -*-===//
//
// Shapes and guards: symbolic sizes, shape inference, type specialization, the guard set. Declared in Passes.td beside this file.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_FRONTEND_PASSES_H
#define TGC_TRANSFORMS_FRONTEND_PASSES_H

#include "tgc/Transforms/PassDependencies.h"

namespace mlir::tgc {

#define GEN_PASS_DECL
#include "tgc/Transforms/Frontend/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tgc/Transforms/Frontend/Passes.h.inc"

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_FRONTEND_PASSES_H
