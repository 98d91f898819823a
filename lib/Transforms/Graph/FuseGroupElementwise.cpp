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
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <deque>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCFUSEGROUPELEMENTWISE
#include "tgc/Transforms/Graph/Passes.h.inc"
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

/// Keeps the set of live generics up to date while the rewriter erases and
/// creates ops (erased ops may stay in the worklist; their addresses may be
/// reused by new ops).
struct GenericTracker : RewriterBase::Listener {
  DenseSet<Operation *> live;
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    if (isa<linalg::GenericOp>(op))
      live.insert(op);
  }
  void notifyOperationErased(Operation *op) override { live.erase(op); }
};

struct TgcFuseGroupElementwisePass
    : tgc::impl::TgcFuseGroupElementwiseBase<TgcFuseGroupElementwisePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    generalizeTaggedLinalgOps(func);
    GenericTracker tracker;
    IRRewriter rewriter(&getContext(), &tracker);
    // A worklist in program order: each consumer absorbs its producers one
    // by one, the fused op taking its place at the front. (Re-walking the
    // function after each fusion made the pass quadratic: 25 s for a
    // 5,000-op chain.)
    std::deque<Operation *> worklist;
    func.walk([&](linalg::GenericOp op) {
      tracker.live.insert(op);
      worklist.push_back(op);
    });
    while (!worklist.empty()) {
      Operation *op = worklist.front();
      worklist.pop_front();
      if (!tracker.live.contains(op))
        continue;
      auto consumer = cast<linalg::GenericOp>(op);
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
      // The consumer's results move to the fused op (as upstream's pattern
      // does). Where the fused op is elementwise (only parallel loops), the
      // producer's results move too for the users after the fused op (the
      // fused op keeps them as results when the producer has other users):
      // one multi-output kernel instead of the producer's kernel plus a
      // recomputation (an optimizer step writes a parameter and both
      // moments from one chain). The producer stays for users before the
      // fused op, and for reductions, whose kernels write only the reduced
      // results and their epilogues.
      auto fusedOp = cast<linalg::GenericOp>(fused->fusedOp);
      // (Every output through the identity map too: the flat and element
      // kernels' shape, each point writing its own element of each.)
      bool elementwise =
          fusedOp.getNumParallelLoops() == fusedOp.getNumLoops() &&
          llvm::all_of(fusedOp.getDpsInitsMutable(), [&](OpOperand &init) {
            return fusedOp.getMatchingIndexingMap(&init).isIdentity();
          });
      for (auto [from, to] : fused->replacements) {
        if (from.getDefiningOp() != producer) {
          rewriter.replaceAllUsesWith(from, to);
          continue;
        }
        if (!elementwise)
          continue;
        rewriter.replaceUsesWithIf(from, to, [&](OpOperand &u) {
          Operation *user = u.getOwner();
          while (user && user->getBlock() != fusedOp->getBlock())
            user = user->getParentOp();
          return user && user != fusedOp && fusedOp->isBeforeInBlock(user);
        });
      }
      if (consumer->use_empty())
        rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      // One operand per distinct input, no dead results and one copy of
      // each computation in the body, after every fusion: a producer
      // absorbed along two paths (a diamond of uses) brings its inputs and
      // its body twice, and a chain of diamonds doubled both at each step
      // (a ResNet-18 training forward's group reached 72,261 operands and
      // compiled for minutes).
      rewriter.setInsertionPoint(fusedOp);
      FailureOr<linalg::GenericOp> compact =
          linalg::deduplicateOperandsAndRemoveDeadResults(
              rewriter, fusedOp,
              /*removeOutputs=*/true);
      linalg::GenericOp next = succeeded(compact) ? *compact : fusedOp;
      if (next != fusedOp)
        for (NamedAttribute a : tags)
          next->setAttr(a.getName(), a.getValue());
      DominanceInfo dominance(next);
      eliminateCommonSubExpressions(rewriter, dominance, next);
      worklist.push_front(next);
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
