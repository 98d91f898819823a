//===- ReciprocalDivisions.cpp - a softmax's row times one reciprocal -----===//
//
// A softmax divides each element of a row by the row's sum. An IEEE
// division costs about ten times a product (vdivps against vmulps on x86),
// so PyTorch's CPU kernels compute `1 / sum` once per row and multiply
// (`_vec_softmax_lastdim`), and so does the GPU pipeline's
// divisionsToReciprocals. This pass does the same on the CPU: the
// division, which tgc-to-linalg marks (kSoftmaxSumDivisionAttrName: the
// sum of `exp(x - max)` is at least 1, so its reciprocal is a normal
// number and the product is within 1.5 ulp of the quotient), becomes a
// product with `1 / sum`; the reciprocal does not change along the
// innermost loop, and LLVM's loop-invariant code motion computes it once
// per row.
//
// Explicitly, not with the `arcp` fast-math flag: with `arcp` LLVM's x86
// back end turns `x / sqrt(y)` into a reciprocal square-root estimate and
// a Newton step (NaN for 0 and infinity), and `arcp` would allow a
// reciprocal of any divisor, including those whose reciprocal overflows.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCRECIPROCALDIVISIONS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

/// Whether `operand`'s values are the same along the generic's innermost
/// loop: its indexing map does not read that loop's index.
bool invariantInInnermostLoop(linalg::GenericOp op, OpOperand &operand) {
  unsigned loops = op.getNumLoops();
  if (loops == 0)
    return false;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  return !map.isFunctionOfDim(loops - 1);
}

struct TgcReciprocalDivisionsPass
    : impl::TgcReciprocalDivisionsBase<TgcReciprocalDivisionsPass> {
  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp op) {
      Block *body = op.getBody();
      for (auto div :
           llvm::make_early_inc_range(body->getOps<arith::DivFOp>())) {
        if (!div->hasAttr(kSoftmaxSumDivisionAttrName))
          continue;
        auto arg = dyn_cast<BlockArgument>(div.getRhs());
        if (!arg || arg.getOwner() != body ||
            arg.getArgNumber() >= op.getNumDpsInputs() ||
            !invariantInInnermostLoop(
                op, *op.getDpsInputOperand(arg.getArgNumber())))
          continue;
        OpBuilder b(div);
        Location loc = div.getLoc();
        Type type = div.getType();
        Value one =
            arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, 1.0));
        Value reciprocal = arith::DivFOp::create(b, loc, one, arg);
        Value product = arith::MulFOp::create(b, loc, div.getLhs(), reciprocal);
        div.replaceAllUsesWith(product);
        div.erase();
      }
    });
  }
};

} // namespace
} // namespace mlir::tgc
