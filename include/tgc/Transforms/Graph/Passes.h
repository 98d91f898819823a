//===- Passes.h - Graph passes ----------------------------------*- C++ -*-===//
//
// The graph: decomposition and fusion groups. Declared in Passes.td beside this file.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_GRAPH_PASSES_H
#define TGC_TRANSFORMS_GRAPH_PASSES_H

#include "tgc/Transforms/PassDependencies.h"

namespace mlir::tgc {

#define GEN_PASS_DECL
#include "tgc/Transforms/Graph/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tgc/Transforms/Graph/Passes.h.inc"

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_GRAPH_PASSES_H
