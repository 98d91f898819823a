//===- GpuCompiler.h - compile a tgc function for a CUDA GPU ----*- C++ -*-===//
//
// Compiles one tgc function with tgc-gpu-pipeline into a GPU artifact: the
// kernels as a cubin (ptxas) or PTX (when no ptxas is found; the driver
// then compiles it at load), and the launch plan read from the host
// function (buffers, launches, GEMMs) and the guard set. The artifact needs
// no MLIR or LLVM to run (lib/Runtime's GpuFunction).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_COMPILER_GPUCOMPILER_H
#define TGC_COMPILER_GPUCOMPILER_H

#include "tgc/Compiler/CompileOptions.h"
#include "tgc/Pipelines/Pipelines.h"
#include "tgc/Runtime/GpuPlan.h"
#include "tgc/Target/LaunchPlan/LaunchPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::tgc {

/// The kernel options default to tgc-gpu-form-kernels' (Passes.td).
struct GpuCompileOptions : FrontendCompileOptions {
  int64_t blockSize = kGpuStrategyDefaults.blockSize;
  /// Row kernels keep static rows in registers.
  bool rowRegisters = kGpuStrategyDefaults.rowRegisters;
  int64_t rowBlockSize = kGpuStrategyDefaults.rowBlockSize;
  /// Threads of row kernels over static rows of at least 16384 elements
  /// (0: rowBlockSize).
  int64_t longRowBlockSize = kGpuStrategyDefaults.longRowBlockSize;
  /// Most blocks of a grid-stride kernel.
  int64_t maxBlocks = kGpuKernelDefaults.maxBlocks;
  /// 16-byte vector accesses (argument buffers then get alignment guards).
  bool vectorize = kGpuStrategyDefaults.vectorize;
  /// GEMM consumers as cuBLASLt epilogues (bias, ReLU, tanh GELU).
  bool gemmEpilogues = kGpuStrategyDefaults.gemmEpilogues;
  /// Float divisions as IEEE divisions; by default a division by a value
  /// shared by many elements becomes a multiplication by its reciprocal
  /// (tgc-gpu-form-kernels' `exact-division`).
  bool exactDivision = kGpuKernelDefaults.exactDivision;
  /// One kernel for identical ones (tgc-gpu-dedup-kernels).
  bool dedupKernels = true;
  /// f32 matmul / convolution GEMMs may round to TF32 (tgc-mark-tf32).
  bool tf32Matmuls = false, tf32Convolutions = false;
  /// f32 convolutions as cuDNN calls (the pipeline's cudnn-convolutions).
  bool cudnnConvolutions = false;
  /// Gathers check their indices inside their kernels, as CUDA asserts (the
  /// pipeline's device-asserts; run with GpuFunction::setDeviceAsserts).
  bool deviceAsserts = false;
  /// The SM architecture for PTX and the cubin.
  std::string chip = "sm_90";
  /// Threads for the kernels' LLVM work (NVPTXOptions::compileThreads);
  /// 0: `$TGC_COMPILE_THREADS`, else every hardware thread.
  unsigned compileThreads = 0;
  /// PTX only (no ptxas), as when no CUDA toolkit is installed.
  bool ptxOnly = false;
};

struct GpuCompileResult {
  ::tgc::runtime::GpuArtifact artifact;
  double compileMs = 0;
  int64_t kernels = 0; // kernel launches in the plan
  int64_t gemms = 0;   // cuBLASLt calls in the plan
  /// (phase, ms) in order (tgc/Compiler/CompileReport.h).
  std::vector<std::pair<std::string, double>> phases;
  /// "kernel NAME: sources" / "gemm: sources" per line (kernelSources()).
  std::string kernelMap;
  /// The arena layout for the example shapes (arenaLayout()).
  std::string arenaLayout;
  /// Each plan step for the example shapes (describePlanSteps(): kernel,
  /// strategy, grid, bytes); "" when they do not evaluate the plan.
  std::string steps;
};

/// Compiles `entry` of `module` (cloned, not changed). Errors (diagnostics
/// with locations) go to `error`.
FailureOr<GpuCompileResult> compileGpuFunction(ModuleOp module,
                                               StringRef entry,
                                               const GpuCompileOptions &options,
                                               std::string &error);

} // namespace mlir::tgc

#endif // TGC_COMPILER_GPUCOMPILER_H
