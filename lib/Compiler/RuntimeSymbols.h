//===- RuntimeSymbols.h - what JIT-compiled CPU code calls (private) -*- C++ -*-===//
//
// Shared by CpuCompiler.cpp (the ExecutionEngine of a compile) and
// CpuArtifact.cpp (the JIT of a cached object).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_COMPILER_RUNTIMESYMBOLS_H
#define TGC_LIB_COMPILER_RUNTIMESYMBOLS_H

#include "llvm/ExecutionEngine/Orc/Mangling.h"

namespace mlir::tgc {

/// The runtime functions compiled CPU code calls (failed data checks and
/// allocations: tgc-report-checks, tgc-check-allocations), for a JIT's
/// symbol table.
llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner &interner);

} // namespace mlir::tgc

#endif // TGC_LIB_COMPILER_RUNTIMESYMBOLS_H
