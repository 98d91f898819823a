//===- TgcGuardOps.h - tgc_guard dialect operations -------------*- C++ -*-===//

#ifndef TGC_DIALECT_TGCGUARD_IR_TGCGUARDOPS_H
#define TGC_DIALECT_TGCGUARD_IR_TGCGUARDOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "tgc/Dialect/TgcGuard/IR/TgcGuardDialect.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "tgc/Dialect/TgcGuard/IR/TgcGuardInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h.inc"

#endif // TGC_DIALECT_TGCGUARD_IR_TGCGUARDOPS_H
