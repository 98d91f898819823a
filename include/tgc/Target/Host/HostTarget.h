//===- HostTarget.h - LLVM-dialect modules to host objects ------*- C++ -*-===//
//
// TGC's CPU code generation after the LLVM dialect: a module lowered by
// `tgc-cpu-pipeline` becomes optimized LLVM IR, a native object file for the
// host CPU, or a shared object that links LLVM's OpenMP runtime. The entry
// points of a shared object are the guard function `tgc_guard_<f>` (C ABI,
// see tgc/Runtime/GuardABI.h) and `_mlir_ciface_<f>` (MLIR's C interface:
// memref descriptors by pointer).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TARGET_HOST_HOSTTARGET_H
#define TGC_TARGET_HOST_HOSTTARGET_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;

namespace tgc {

struct HostCodegenOptions {
  /// LLVM optimization level (0-3) of the IR pipeline and the back end.
  unsigned optLevel = 3;
  /// CPU to generate code for: `native` (the host's, with its features),
  /// `generic`, or an LLVM CPU name (`x86-64-v3`, `skylake-avx512`, ...).
  std::string cpu = "native";
  /// Linker for shared objects (ld.lld). Empty: the one next to LLVM's
  /// tools, then PATH.
  std::string linkerPath;
  /// Directory of libomp.so for shared objects. Empty: LLVM's library
  /// directory.
  std::string ompLibDir;
};

/// Adds the LLVM-IR translation interfaces of the dialects a lowered CPU
/// module holds (builtin, LLVM, OpenMP).
void registerHostTranslationDialects(DialectRegistry &registry);

/// Prepares the entry functions of a lowered CPU module, the glue between
/// its kernels, before LLVM optimizes it:
///
/// - every defined function with external linkage (the entries, their
///   C-interface wrappers, the guard functions) gets generic
///   instruction-scheduling tuning (`"tune-cpu"="generic"`). The CPU
///   pipeline outlines every kernel into an internal function, so what is
///   left in an entry is allocations, views and calls; LLVM's post-RA
///   scheduler for some hosts' models (Zen 4) spent most of a deep model's
///   code generation on it. The kernels keep the host's tuning.
/// - an entry `f` with a C interface `_mlir_ciface_f` is inlined into it
///   here, before LLVM's passes: the wrapper's call passes every field of
///   every memref descriptor (thousands of scalars for a model's weights
///   and activations), and LLVM's instruction selection is quadratic in
///   such a call's stack stores (5.3 s for a 24-layer transformer's
///   object), as is CalledValuePropagation, which runs before LLVM's
///   inliner (10 of a 3000-op graph's 16 s of optimization). `f` itself
///   stays defined and exported.
void prepareEntryFunctions(llvm::Module &module);

/// Translates `module` (LLVM and OpenMP dialects only) to LLVM IR optimized
/// for the host at `options.optLevel`, as text.
FailureOr<std::string> translateModuleToHostLLVMIR(Operation *module,
                                                   const HostCodegenOptions &options);

/// Translates `module` to a native relocatable object file (ELF on Linux).
FailureOr<std::string> translateModuleToHostObject(Operation *module,
                                                   const HostCodegenOptions &options);

/// Translates `module` to a shared object linked against libomp (runs
/// `options.linkerPath`). Diagnostics carry the linker's output.
FailureOr<std::string>
translateModuleToSharedObject(Operation *module,
                              const HostCodegenOptions &options);

/// Registers --tgc-to-host-llvmir, --tgc-to-object and
/// --tgc-to-shared-object with mlir-translate. `inputDialects` adds dialects
/// the input may still hold, so that an unlowered module parses and gets a
/// "not lowered" diagnostic.
void registerHostTranslations(
    std::function<void(DialectRegistry &)> inputDialects = {});

} // namespace tgc
} // namespace mlir

#endif // TGC_TARGET_HOST_HOSTTARGET_H
