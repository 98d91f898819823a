//===- TgcDialect.cpp - tgc dialect ---------------------------------------===//

#include "tgc/Dialect/Tgc/IR/TgcDialect.h"
#include "tgc/Dialect/Tgc/IR/TgcOps.h"

using namespace mlir;
using namespace mlir::tgc;

#include "tgc/Dialect/Tgc/IR/TgcOpsDialect.cpp.inc"

void TgcDialect::initialize() { registerOps(); }

Operation *TgcDialect::materializeConstant(OpBuilder &builder,
                                           Attribute value, Type type,
                                           Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  if (!isa<RankedTensorType>(type))
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
