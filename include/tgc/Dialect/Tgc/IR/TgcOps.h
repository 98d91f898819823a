//===- TgcOps.h - tgc dialect operations ------------------------*- C++ -*-===//

#ifndef TGC_DIALECT_TGC_IR_TGCOPS_H
#define TGC_DIALECT_TGC_IR_TGCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tgc/Analysis/ShapeInference.h"
#include "tgc/Dialect/Tgc/IR/ShapeRules.h"
#include "tgc/Dialect/Tgc/IR/TgcDialect.h"
#include "tgc/Dialect/Tgc/IR/TgcTraits.h"

#include "tgc/Dialect/Tgc/IR/TgcEnums.h.inc"
#include "tgc/Dialect/Tgc/IR/TgcInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tgc/Dialect/Tgc/IR/TgcOps.h.inc"

#endif // TGC_DIALECT_TGC_IR_TGCOPS_H
