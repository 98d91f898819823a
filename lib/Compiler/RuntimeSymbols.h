//===- RuntimeSymbols.h - what JIT-compiled CPU code calls (private) -*- C++
//-*-===//
//
// Shared by CpuJit.cpp (the JIT of a compile, and of a cached object) and
// CpuCompiler.cpp (which defines them).
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

/// The arena of a call (tgc-lower-arena): `bytes` of 64-byte aligned
/// memory, the last arena this thread released when it is large enough,
/// else newly allocated; null when there is no memory. It is memory of
/// the C allocator: `free` may release it too.
extern "C" void *tgc_arena_acquire(int64_t bytes);

/// Gives an arena back: this thread keeps the larger of it and the one
/// it kept (up to TGC_ARENA_CACHE_MB, default 4096 MiB, each; 0: none),
/// and frees the other.
extern "C" void tgc_arena_release(void *arena);

#endif // TGC_LIB_COMPILER_RUNTIMESYMBOLS_H
