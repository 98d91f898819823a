//===- CloneSharedFills.cpp - one fill per written accumulator ------------===//
//
// CSE merges identical `tensor.empty` + `linalg.fill` pairs, so reductions
// that start from the same zero tensor (a batch norm's sum and sum of
// squared deviations, every per-channel reduction of a backward) share one
// fill as their init. One-shot bufferization then copies the filled buffer
// for every user but one. Cloning the fill before each further user gives
// each its own buffer, which the reduction's kernel fills itself.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "tgc/Transforms/Fills.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCCLONESHAREDFILLS
#include "tgc/Transforms/Graph/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// A fill (tgc::isScalarFill, or a generic of parallel loops that yields a
/// value from outside its body) writing a tensor.empty.
bool isFill(Operation *op) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (!dps || op->getNumResults() != 1 || dps.getNumDpsInits() != 1 ||
      !dps.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>())
    return false;
  if (isScalarFill(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 0 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  Block *body = generic.getBody();
  Value yielded = body->getTerminator()->getOperand(0);
  return body->getOperations().size() == 1 && yielded.getParentBlock() != body;
}

struct TgcCloneSharedFillsPass
    : tgc::impl::TgcCloneSharedFillsBase<TgcCloneSharedFillsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> fills;
    getOperation().walk([&](Operation *op) {
      if (isFill(op))
        fills.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *fill : fills) {
      Value filled = fill->getResult(0);
      // The init operands of destination-style users, in program order.
      SmallVector<OpOperand *> inits;
      for (OpOperand &use : filled.getUses()) {
        auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        if (dps && dps.isDpsInit(&use) &&
            use.getOwner()->getBlock() == fill->getBlock())
          inits.push_back(&use);
      }
      if (inits.size() < 2)
        continue;
      llvm::sort(inits, [](OpOperand *a, OpOperand *b) {
        return a->getOwner()->isBeforeInBlock(b->getOwner());
      });
      auto empty = cast<DestinationStyleOpInterface>(fill)
                       .getDpsInitOperand(0)
                       ->get()
                       .getDefiningOp<tensor::EmptyOp>();
      // Every init after the first gets its own fill, right before its
      // user (the empty's dynamic sizes are defined before the original).
      for (OpOperand *use : llvm::drop_begin(inits)) {
        rewriter.setInsertionPoint(use->getOwner());
        Operation *newEmpty = rewriter.clone(*empty);
        IRMapping map;
        map.map(empty.getResult(), newEmpty->getResult(0));
        Operation *newFill = rewriter.clone(*fill, map);
        rewriter.modifyOpInPlace(use->getOwner(),
                                 [&] { use->set(newFill->getResult(0)); });
      }
    }
  }
};

} // namespace
