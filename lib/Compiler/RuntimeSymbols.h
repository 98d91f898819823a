//===- RuntimeSymbols.h - what JIT-compiled CPU code calls (private) -*- C++ -*-===//
//
// Shared by CpuCompiler.cpp (the ExecutionEngine of a compile) and
// CpuArtifact.cpp (the JIT of a cached object).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_COMPILER_RUNTIMESYMBOLS_H
#define TGC_LIB_COMPILER_RUNTIMESYMBOLS_H

#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <cstdint>

namespace mlir::tgc {

/// The runtime functions compiled CPU code calls (failed data checks and
/// allocations: tgc-report-checks, tgc-check-allocations; result buffers:
/// tgc-lower-result-buffers), for a JIT's symbol table.
llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner &interner);

} // namespace mlir::tgc

/// The memory for result `index` of the call in progress on this thread
/// (tgc-lower-result-buffers): returns 1 with `*buffer` the caller's
/// memory for it (null when its allocator failed: the call fails), or 0
/// when the code is to allocate it itself: no call of
/// CompiledCpuFunction::runDescriptors in progress, the result asked for
/// already, or `rank`, `sizes` and `bytes` not a buffer of the result's
/// type. The caller owns the memory: nothing frees it.
extern "C" int32_t tgc_result_buffer(int32_t index, int64_t rank,
                                     const int64_t *sizes, int64_t bytes,
                                     void **buffer);

#endif // TGC_LIB_COMPILER_RUNTIMESYMBOLS_H
