//===- Passes.h - CPU passes ------------------------------------*- C++ -*-===//
//
// CPU code generation: parallel loops, math, allocations and data checks. Declared in Passes.td beside this file.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_CPU_PASSES_H
#define TGC_TRANSFORMS_CPU_PASSES_H

#include "tgc/Transforms/PassDependencies.h"

namespace mlir::tgc {

/// The largest buffer the CPU pipeline puts on the stack
/// (promote-buffers-to-stack), and so the bound tgc-form-kernels keeps a
/// kernel's per-iteration temporaries within.
constexpr int64_t kMaxStackBufferBytes = 64 * 1024;

#define GEN_PASS_DECL
#include "tgc/Transforms/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tgc/Transforms/CPU/Passes.h.inc"

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_CPU_PASSES_H
