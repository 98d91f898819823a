//===- Passes.h - TGC conversions -------------------------------*- C++ -*-===//

#ifndef TGC_CONVERSION_PASSES_H
#define TGC_CONVERSION_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tgc {

#define GEN_PASS_DECL
#include "tgc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tgc/Conversion/Passes.h.inc"

} // namespace mlir::tgc

#endif // TGC_CONVERSION_PASSES_H
