//===- TgcGuardDialect.h - tgc_guard dialect --------------------*- C++ -*-===//

#ifndef TGC_DIALECT_TGCGUARD_IR_TGCGUARDDIALECT_H
#define TGC_DIALECT_TGCGUARD_IR_TGCGUARDDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOpsDialect.h.inc"

#endif // TGC_DIALECT_TGCGUARD_IR_TGCGUARDDIALECT_H
