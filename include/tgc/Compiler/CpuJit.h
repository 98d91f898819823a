//===- CpuJit.h - LLVM IR to objects on threads, linked ------*- C++ -*-===//
//
// The CPU compiler's last phase (lib/Compiler/CpuJit.cpp). A module's
// LLVM work (the optimizer, then instruction selection and the rest of
// code generation) ran on one thread, about 40% of a model's compile time;
// the kernels tgc-outline-identical-kernels outlines are independent. The
// module is split into parts of about equal size (each kernel whole, with
// the local functions whose address it takes: OpenMP's outlined bodies),
// each part optimized and emitted as an object on a thread of its own, in
// an LLVMContext of its own; the objects are linked in a JIT of the
// compiled function's own, as a cached artifact's objects are.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_COMPILER_CPUJIT_H
#define TGC_COMPILER_CPUJIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::tgc {

/// Adds `_mlir_<name>`, a `void(void **)` wrapper of function `name` (which
/// returns void): argument i is read from `*args[i]` (ExecutionEngine's
/// packed calling convention, which TGC calls its entry points with).
llvm::Error addPackedWrapper(llvm::Module &module, llvm::StringRef name);

/// The function attribute that asks compileToObjects for fast code
/// generation: -O1 and LLVM's fast instruction selection, in a part of its
/// own. For straight-line checks that run once per call (the guard
/// function), whose -O3 code generation costs more than it saves. Only a
/// function no other function calls may carry it.
inline constexpr const char *kFastCodegen = "tgc-fast-codegen";

/// Optimizes and emits `module` as up to `threads` objects (`objects`,
/// fewer when it has fewer kernels, or one when it has fewer than
/// `minSplitInstructions` instructions), each on a thread of its own, plus
/// one for the functions marked kFastCodegen when the module is split.
/// `optLevel` and `vectorMath` as makeHostOptimizer's. The objects link
/// into one program: what another part references is external (hidden).
llvm::Error compileToObjects(std::unique_ptr<llvm::Module> module,
                             unsigned threads, unsigned optLevel,
                             bool vectorMath, std::vector<std::string> &objects,
                             size_t minSplitInstructions = 500);

/// A JIT for one compiled function's objects: the process's symbols, the
/// shared libraries `sharedLibs` (or libomp when `openmp` and MLIR's C
/// runner utils when empty) loaded into the process, and TGC's runtime
/// callbacks. With `perfListener`, each object is announced to `perf`
/// (jitdump; TGC_PERF_JIT=1).
llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
createHostJit(const std::vector<std::string> &sharedLibs, bool openmp,
              bool perfListener);

/// Adds `objects` to `jit` and initializes them.
llvm::Error addObjects(llvm::orc::LLJIT &jit,
                       const std::vector<std::string> &objects);

} // namespace mlir::tgc

#endif // TGC_COMPILER_CPUJIT_H
