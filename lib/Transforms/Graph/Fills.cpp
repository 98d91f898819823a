//===- Fills.cpp - Which linalg ops write one scalar everywhere -----------===//

#include "tgc/Transforms/Fills.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

bool mlir::tgc::isScalarFill(Operation *op) {
  if (isa<linalg::FillOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  Value in = generic.getDpsInputOperand(0)->get();
  if (auto shaped = dyn_cast<ShapedType>(in.getType()))
    if (shaped.getRank() != 0)
      return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == generic.getBody()->getArgument(0);
}
