//===- TgcSymDialect.cpp - tgc_sym dialect --------------------------------===//

#include "tgc/Dialect/TgcSym/IR/TgcSymDialect.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tgc::sym;

#include "tgc/Dialect/TgcSym/IR/TgcSymOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tgc/Dialect/TgcSym/IR/TgcSymOpsTypes.cpp.inc"

void TgcSymDialect::initialize() {
  registerTypes();
  registerOps();
}

void TgcSymDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tgc/Dialect/TgcSym/IR/TgcSymOpsTypes.cpp.inc"
      >();
}
