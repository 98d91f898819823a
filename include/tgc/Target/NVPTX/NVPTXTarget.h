//===- NVPTXTarget.h - gpu.module to PTX and cubin --------------*- C++ -*-===//
//
// TGC's NVIDIA code generation: a `gpu.module` whose body is already lowered
// to the LLVM and NVVM dialects becomes PTX through LLVM's NVPTX back end, and
// PTX becomes a cubin through CUDA's `ptxas`. The GPU pipeline, the runtime
// that embeds cubins in artifacts and `tgc-translate` all go through this
// library.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TARGET_NVPTX_NVPTXTARGET_H
#define TGC_TARGET_NVPTX_NVPTXTARGET_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;

namespace tgc {

/// How to generate code for one NVIDIA GPU.
struct NVPTXOptions {
  /// The SM architecture, as LLVM's NVPTX back end and ptxas name it
  /// (`sm_80`, `sm_90`, `sm_90a`, ...).
  std::string chip = "sm_90";
  /// LLVM target features, comma separated (`+ptx80`). Empty: LLVM's default
  /// for the chip (the lowest PTX ISA version that supports it).
  std::string features;
  /// LLVM optimization level (0-3) for both the IR pipeline and ptxas.
  unsigned optLevel = 3;
  /// ptxas to run. Empty: search for it (see findPtxas).
  std::string ptxasPath;
  /// libdevice bitcode, linked when the module calls `__nv_*` functions.
  /// Empty: search for it (see findLibdevice).
  std::string libdevicePath;
  /// Threads for LLVM's optimizer and NVPTX back end: with more than one,
  /// the kernels are split into up to this many parts, each optimized and
  /// emitted on its own thread, and their PTX joined into one module (the
  /// parts' local symbols renamed). 1: the module whole, on the calling
  /// thread. 0: resolveCompileThreads(0).
  unsigned compileThreads = 1;
  /// Called as each stage starts ("to LLVM IR", "libdevice", "LLVM opt",
  /// "PTX codegen", "ptxas"; with several threads "LLVM opt and PTX
  /// codegen" replaces the middle three), for compile-time reports.
  std::function<void(const char *stage)> onStage;
};

/// Adds what translating a lowered gpu.module needs to `registry`: the
/// builtin, GPU, LLVM and NVVM dialects and their LLVM-IR translation
/// interfaces.
void registerNVPTXTranslationDialects(DialectRegistry &registry);

/// The compile threads `requested` (NVPTXOptions::compileThreads) resolves
/// to: itself when not 0, else `$TGC_COMPILE_THREADS` when set to a positive
/// number, else the hardware threads this process may use.
unsigned resolveCompileThreads(unsigned requested);

/// Rewrites LLVM IR that ptxas is known to compile wrong into equivalent IR
/// it compiles right (see PtxasWorkarounds.cpp): each integer negation that
/// feeds an integer min or max or a signed integer comparison becomes opaque
/// inline assembly for that use.
/// Returns the number of uses rewritten. translateGPUModuleToPTX runs it
/// after LLVM's optimizations.
unsigned hideNegationsFromIntegerMinMax(llvm::Module &module);

/// Translates `module`, whose body must hold only LLVM- and NVVM-dialect ops
/// (kernels are `llvm.func`s with the `nvvm.kernel` attribute), to PTX
/// assembly for `options.chip`, linking in the libdevice functions it calls.
/// With `options.compileThreads` other than 1 the kernels' LLVM work runs
/// on several threads (lib/Target/NVPTX/SplitKernels.h); the PTX is one
/// module either way.
/// The LLVM-IR translation interfaces must be registered in the module's
/// context (registerNVPTXTranslationDialects). Emits diagnostics at the
/// module's location and fails on an unknown chip or feature, a PTX version
/// too old for the chip, an op that is not lowered, or an LLVM failure.
FailureOr<std::string> translateGPUModuleToPTX(gpu::GPUModuleOp module,
                                               const NVPTXOptions &options);

/// Finds the ptxas executable. A non-empty `explicitPath` must name an
/// executable file, and is the only place looked at. Otherwise the search
/// looks in `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, the CUDA toolkit TGC was
/// configured with (CMake's TGC_CUDA_PATH, by default /usr/local/cuda) and
/// then PATH. The error names every place that was looked at.
llvm::Expected<std::string> findPtxas(StringRef explicitPath = {});

/// Finds libdevice (`nvvm/libdevice/libdevice.10.bc`) the way findPtxas finds
/// ptxas, PATH excepted.
llvm::Expected<std::string> findLibdevice(StringRef explicitPath = {});

/// Assembles `ptx` into a cubin for `options.chip` with ptxas
/// (`-arch=<chip> -O<optLevel>`), through temporary files. Emits an error at
/// `loc`, quoting ptxas' own messages, when ptxas is missing or fails.
FailureOr<std::string>
compilePTXToCubin(StringRef ptx, const NVPTXOptions &options, Location loc);

/// Translates `module` to PTX and assembles it: the two steps above.
FailureOr<std::string> translateGPUModuleToCubin(gpu::GPUModuleOp module,
                                                 const NVPTXOptions &options);

/// Registers the `--tgc-to-ptx` and `--tgc-to-cubin` translations and their
/// command-line options (`--tgc-gpu-chip`, `--tgc-gpu-features`,
/// `--tgc-gpu-opt-level`, `--tgc-ptxas-path`, `--tgc-libdevice-path`,
/// `--tgc-gpu-module`) with mlir-translate. Call once, before parsing the
/// command line.
/// Registers --tgc-to-ptx and --tgc-to-cubin. `inputDialects` (optional)
/// registers further dialects the input may hold besides the kernels (the
/// tgc dialects of a host function next to its gpu.modules).
void registerNVPTXTranslations(
    void (*inputDialects)(DialectRegistry &) = nullptr);

} // namespace tgc
} // namespace mlir

#endif // TGC_TARGET_NVPTX_NVPTXTARGET_H
