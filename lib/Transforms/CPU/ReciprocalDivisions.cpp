//===- ReciprocalDivisions.cpp - divisions of a row by one value ----------===//
//
// A softmax divides each element of a row by the row's sum. An IEEE
// division costs about ten times a product (vdivps against vmulps on x86),
// so PyTorch's CPU kernels compute `1 / sum` once per row and multiply
// (`_vec_softmax_lastdim`), and so does the GPU pipeline's
// divisionsToReciprocals. This pass allows the same on the CPU: a float
// division inside a `linalg.generic` whose divisor is the same for every
// iteration of the innermost loop, and computed (not a constant), gets the
// `arcp` fast-math flag; once the generic is a loop, LLVM's loop-invariant
// code motion computes the reciprocal before the loop and multiplies in it.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

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
      for (auto div : body->getOps<arith::DivFOp>()) {
        auto arg = dyn_cast<BlockArgument>(div.getRhs());
        if (!arg || arg.getOwner() != body ||
            arg.getArgNumber() >= op.getNumDpsInputs())
          continue;
        OpOperand *operand = op.getDpsInputOperand(arg.getArgNumber());
        // A constant divisor (`x / 3`) stays a division, as eager's.
        if (matchPattern(operand->get(), m_Constant()) ||
            !invariantInInnermostLoop(op, *operand))
          continue;
        arith::FastMathFlags flags =
            div.getFastmath() | arith::FastMathFlags::arcp;
        div.setFastmath(flags);
      }
    });
  }
};

} // namespace
} // namespace mlir::tgc
