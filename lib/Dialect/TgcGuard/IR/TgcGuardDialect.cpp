//===- TgcGuardDialect.cpp - tgc_guard dialect ----------------------------===//

#include "tgc/Dialect/TgcGuard/IR/TgcGuardDialect.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymDialect.h"

using namespace mlir;
using namespace mlir::tgc::guard;

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOpsDialect.cpp.inc"

void TgcGuardDialect::initialize() { registerOps(); }
