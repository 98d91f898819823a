//===- RuntimeCalls.h - calls of TGC's runtime from compiled code -*- C++ -*-===//
//
// Compiled CPU code reports failed data checks and allocations to TGC's
// runtime (tgc_report_check_failure, tgc_report_alloc_failure). The JIT
// resolves these functions to the runtime in the process; an object or a
// shared object must load without it (it is self-contained), so they are
// weak declarations, called only when present.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_RUNTIMECALLS_H
#define TGC_TRANSFORMS_RUNTIMECALLS_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tgc {

/// The `extern_weak` llvm.func declaration of runtime function `name` of
/// `type` in `module` (added once, at the module's start). Fails, with a
/// diagnostic at `loc`, when `module` already has another symbol of that
/// name.
FailureOr<LLVM::LLVMFuncOp> declareRuntimeFunction(ModuleOp module,
                                                   Location loc, StringRef name,
                                                   LLVM::LLVMFunctionType type);

/// Calls the void runtime function `name` with `args` at `builder`'s
/// insertion point, if the process defines it: an `extern_weak`
/// llvm.func declaration (added to `module` once) and a call through its
/// address when that is not null. Fails, with a diagnostic at `loc`, when
/// `module` already has another symbol of that name.
LogicalResult createRuntimeCall(OpBuilder &builder, Location loc,
                                ModuleOp module, StringRef name,
                                ValueRange args);

/// `bytes` (of `indexType`) from malloc, aligned to `alignment` as
/// finalize-memref-to-llvm aligns an allocation: the allocated pointer
/// (what free takes) and the aligned one.
FailureOr<std::pair<Value, Value>>
createAlignedMalloc(OpBuilder &builder, Location loc, ModuleOp module,
                    Type indexType, Value bytes, int64_t alignment);

/// A pointer to a NUL-terminated string constant `text`: an internal
/// global `name` of the enclosing module.
Value createStringConstant(OpBuilder &builder, Location loc, StringRef name,
                           StringRef text);

} // namespace mlir::tgc

#endif // TGC_TRANSFORMS_RUNTIMECALLS_H
