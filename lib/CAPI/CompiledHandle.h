//===- CompiledHandle.h - what a tgc_compiled handle holds (private) -*- C++ -*-===//
//
// The parsed compile options and the handle type of the C API, shared by
// CompilerCAPI.cpp (compile, run, profile) and CompileCache.cpp (the
// handle to and from a compile-cache entry).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_CAPI_COMPILEDHANDLE_H
#define TGC_LIB_CAPI_COMPILEDHANDLE_H

#include "tgc/Compiler/ArtifactCache.h"
#include "tgc/Compiler/CacheLocations.h"
#include "tgc/Compiler/CpuCompiler.h"
#include "tgc/Runtime/GpuExecutor.h"
#include "tgc/Runtime/GpuPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tgc::capi {

struct Options {
  bool cuda = false;
  std::string policy = "dynamic";
  bool zeroOne = true, duck = true, fuse = true, decompose = true,
       keepCode = false;
  // deviceAsserts: gathers check their indices in their kernels, and the
  // plan's other checks run as asserts (GpuFunction::setDeviceAsserts).
  bool openmp = true, approximateMath = false, cudaGraphs = false,
       deviceAsserts = false, vectorMath = true, directConvolutions = true;
  bool ptxOnly = false;
  // f32 GEMMs that may round to TF32 (tgc-mark-tf32).
  bool tf32Matmuls = false, tf32Convolutions = false;
  bool cudnnConvolutions = false;
  // GPU kernel options; unset ones keep GpuCompileOptions' defaults
  // (tgc-gpu-form-kernels').
  std::optional<int64_t> blockSize, maxBlocks, rowBlockSize, longRowBlockSize;
  std::optional<bool> rowRegisters, gemmEpilogues, vectorize, exactDivision,
      dedupKernels;
  unsigned optLevel = 3;
  // CPU: the vector width LLVM's vectorizers prefer (0: the host's widest).
  unsigned vectorWidth = 0;
  std::string chip = "sm_90";
  std::vector<std::string> sharedLibs;
  std::vector<std::pair<int64_t, std::vector<int64_t>>> examples;
  // The compile cache (docs/compile-cache.md): off without a folder.
  std::string cacheDir;
  uint64_t cacheMaxBytes = 4ull << 30;
};

/// The compile-cache key of a compile request (CompileCache.cpp): `keyText`
/// is the module text with its locations numbered (numberLocations).
std::string compileCacheKey(const Options &o, llvm::StringRef keyText,
                            llvm::StringRef entry);

} // namespace mlir::tgc::capi

struct tgc_compiled {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  bool cuda = false;
  bool cudaGraphs = false, deviceAsserts = false;
  int32_t numArgs = 0, numResults = 0;
  double compileMs = 0;
  int64_t kernels = 0;
  std::vector<std::string> guardTexts, guardReasons;
  std::string loops, guards, kernels_, arena, plan, ptx, steps;
  // The TF32 flags the source's f32 products are governed by, whatever
  // their values (tgc_compiled_code "tf32"; tf32Kinds()).
  std::string tf32;
  // "parse=0.41;frontend=3.20;..." (tgc/Compiler/CompileReport.h).
  std::string phases;
  // CPU
  std::unique_ptr<mlir::tgc::CompiledCpuFunction> cpu;
  // CUDA
  ::tgc::runtime::GpuArtifact artifact;
  std::unique_ptr<::tgc::runtime::GpuFunction> gpu;
  std::mutex runMutex;
  // The compile cache: "off", "hit", "miss" (compiled, then stored) or
  // "miss, not stored"; the key, the entry's path and a warning line (an
  // entry rejected, an entry not written).
  std::string cacheStatus = "off", cacheKey, cachePath, cacheWarning;
  // A hit on an entry compiled where the model's lines were elsewhere: the
  // CPU code's messages name the entry's lines, rewritten to the caller's
  // as they are reported (capi::relocate).
  std::optional<mlir::tgc::Relocation> relocation;

  /// A message of the compiled code, with the caller's lines.
  std::string located(std::string message) const {
    return relocation ? relocation->apply(message) : message;
  }
};

namespace mlir::tgc::capi {
/// What the compile cache keeps of a compiled handle; false with `error`
/// (a CPU function compiled without its object code).
bool toCacheRecord(const tgc_compiled &c, CacheRecord &record,
                   std::string &error);
/// A handle from a cache record, or null with `error` (then the entry is
/// not used).
std::unique_ptr<tgc_compiled> fromCacheRecord(const CacheRecord &record,
                                              const Options &o,
                                              std::string &error);
/// Rewrites a cache hit's text (kernel map, loops, guards, the GPU plan's
/// messages) from the entry's source lines to the caller's; keeps
/// `relocation` on the handle for the CPU code's messages. Nothing when it
/// is the identity.
void relocate(tgc_compiled &c, const Relocation &relocation);
} // namespace mlir::tgc::capi


#endif // TGC_LIB_CAPI_COMPILEDHANDLE_H
