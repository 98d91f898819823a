//===- ReassociateReductions.cpp - fast-math flags on reduction combiners -===//
//
// A float sum is a dependence chain through its accumulator; LLVM's loop
// vectorizer splits it into vector partial sums only when the combiner may
// be reassociated. The flag is set on the combiner alone, not on the
// element computation that feeds it.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCREASSOCIATEREDUCTIONS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {
struct TgcReassociateReductionsPass
    : impl::TgcReassociateReductionsBase<TgcReassociateReductionsPass> {
  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp op) {
      if (op.getNumReductionLoops() == 0)
        return;
      Block *body = op.getBody();
      auto yield = cast<linalg::YieldOp>(body->getTerminator());
      for (OpOperand &init : op.getDpsInitsMutable()) {
        BlockArgument acc = op.getMatchingBlockArgument(&init);
        unsigned result = init.getOperandNumber() - op.getNumDpsInputs();
        Operation *combiner = yield.getOperand(result).getDefiningOp();
        if (!combiner || combiner->getBlock() != body ||
            !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp,
                 arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp>(
                combiner) ||
            !llvm::is_contained(combiner->getOperands(), acc))
          continue;
        auto fm = cast<arith::ArithFastMathInterface>(combiner);
        arith::FastMathFlags flags = fm.getFastMathFlagsAttr().getValue() |
                                     arith::FastMathFlags::reassoc |
                                     arith::FastMathFlags::contract;
        combiner->setAttr(fm.getFastMathAttrName(),
                          arith::FastMathFlagsAttr::get(op.getContext(), flags));
      }
    });
  }
};
} // namespace
} // namespace mlir::tgc
