//===- TgcDialect.h - tgc dialect -------------------------------*- C++ -*-===//

#ifndef TGC_DIALECT_TGC_IR_TGCDIALECT_H
#define TGC_DIALECT_TGC_IR_TGCDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tgc/Dialect/Tgc/IR/TgcOpsDialect.h.inc"

#endif // TGC_DIALECT_TGC_IR_TGCDIALECT_H
