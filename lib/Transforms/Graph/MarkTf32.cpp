//===- MarkTf32.cpp - the f32 products that may use TF32 ------------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"
#include "tgc/Transforms/Tf32.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCMARKTF32
#include "tgc/Transforms/Graph/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

Tf32Kind mlir::tgc::getTf32Kind(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumOperands() < 2)
    return Tf32Kind::None;
  // f32 operands only: a product of f16 or bf16 is a tensor-core product
  // already, one of f64 is never rounded.
  auto isF32 = [](Value v) { return getElementTypeOrSelf(v.getType()).isF32(); };
  if (!isF32(op->getOperand(0)) || !isF32(op->getOperand(1)))
    return Tf32Kind::None;
  if (isa<Conv2dOp, Conv2dBackwardInputOp, Conv2dBackwardWeightOp>(op))
    return Tf32Kind::Convolution;
  if (isa<MatmulOp, BmmOp, LinearOp>(op))
    return Tf32Kind::Matmul;
  return Tf32Kind::None;
}

std::string mlir::tgc::tf32Kinds(Operation *root) {
  bool matmuls = false, convolutions = false;
  root->walk([&](Operation *op) {
    Tf32Kind kind = getTf32Kind(op);
    matmuls |= kind == Tf32Kind::Matmul;
    convolutions |= kind == Tf32Kind::Convolution;
  });
  std::string text = matmuls ? "matmuls" : "";
  if (convolutions)
    text += text.empty() ? "convolutions" : " convolutions";
  return text;
}

namespace {

struct TgcMarkTf32Pass : tgc::impl::TgcMarkTf32Base<TgcMarkTf32Pass> {
  using TgcMarkTf32Base::TgcMarkTf32Base;

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      Tf32Kind kind = getTf32Kind(op);
      if ((kind == Tf32Kind::Matmul && matmuls) ||
          (kind == Tf32Kind::Convolution && convolutions))
        op->setAttr(kTf32AttrName, UnitAttr::get(op->getContext()));
    });
  }
};

} // namespace
