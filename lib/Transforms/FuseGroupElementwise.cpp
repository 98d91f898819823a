//===- FuseGroupElementwise.cpp - merge a group's elementwise producers ---===//
//
// On the GPU a fusion group is one kernel that reads and writes device
// memory directly: an intermediate tensor between two of the group's
// generics would be a buffer written and read back. This pass merges each
// elementwise producer into every consumer of the same group that reads it
// through a permutation of the consumer's loops (upstream's elementwise
// fusion, applied op by op so that the group tags survive). A producer
// with several consumers in the group is copied into each (recomputing
// arithmetic, never bytes); it disappears once nothing else reads it.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCFUSEGROUPELEMENTWISE
#include "tgc/Transforms/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// The operand of `consumer` whose producer can merge into it, if any.
OpOperand *findFusableOperand(linalg::GenericOp consumer) {
  std::optional<int64_t> group = getFusionGroup(consumer);
  if (!group || !consumer.hasPureTensorSemantics())
    return nullptr;
  for (OpOperand *use : consumer.getDpsInputOperands()) {
    auto producer = use->get().getDefiningOp<linalg::GenericOp>();
    if (!producer || getFusionGroup(producer) != group ||
        producer.getNumParallelLoops() != producer.getNumLoops())
      continue;
    if (!consumer.getMatchingIndexingMap(use).isPermutation() ||
        consumer.getNumLoops() != producer.getNumLoops())
      continue;
    if (linalg::areElementwiseOpsFusable(use))
      return use;
  }
  return nullptr;
}

struct TgcFuseGroupElementwisePass
    : tgc::impl::TgcFuseGroupElementwiseBase<TgcFuseGroupElementwisePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    generalizeTaggedLinalgOps(func);
    IRRewriter rewriter(&getContext());
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<linalg::GenericOp> generics;
      func.walk([&](linalg::GenericOp op) { generics.push_back(op); });
      for (linalg::GenericOp consumer : generics) {
        OpOperand *use = findFusableOperand(consumer);
        if (!use)
          continue;
        Operation *producer = use->get().getDefiningOp();
        SmallVector<NamedAttribute> tags(consumer->getDiscardableAttrs());
        rewriter.setInsertionPoint(consumer);
        FailureOr<linalg::ElementwiseOpFusionResult> fused =
            linalg::fuseElementwiseOps(rewriter, use);
        if (failed(fused))
          continue;
        for (NamedAttribute a : tags)
          fused->fusedOp->setAttr(a.getName(), a.getValue());
        // Only the consumer's results move to the fused op (as upstream's
        // pattern does): the producer stays for its other users, some of
        // which may come before the fused op.
        for (auto [from, to] : fused->replacements)
          if (from.getDefiningOp() != producer)
            rewriter.replaceAllUsesWith(from, to);
        if (consumer->use_empty())
          rewriter.eraseOp(consumer);
        if (producer->use_empty())
          rewriter.eraseOp(producer);
        changed = true;
        break; // the op list is stale
      }
    }
    // Fusion keeps the producer's results in the fused op when the
    // producer has other users; those copies are unused.
    RewritePatternSet patterns(&getContext());
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
