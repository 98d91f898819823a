//===- TgcSymDialect.h - tgc_sym dialect ------------------------*- C++ -*-===//

#ifndef TGC_DIALECT_TGCSYM_IR_TGCSYMDIALECT_H
#define TGC_DIALECT_TGCSYM_IR_TGCSYMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tgc/Dialect/TgcSym/IR/TgcSymOpsDialect.h.inc"

#endif // TGC_DIALECT_TGCSYM_IR_TGCSYMDIALECT_H
