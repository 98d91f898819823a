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
// Then sibling generics of a group that are elementwise over the same
// static loops and independent of each other (a fused projection's q, k
// and v head splits, `sin(x)` and `cos(x)`) become one generic with the
// outputs of both: one kernel instead of one per sibling.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
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

/// Whether `op` is elementwise over static loops and writes each output
/// through the identity map (the flat and element kernels' shape).
bool isMergeableSibling(linalg::GenericOp op) {
  if (!getFusionGroup(op) || !op.hasPureTensorSemantics() ||
      op.getNumLoops() == 0 || op.getNumParallelLoops() != op.getNumLoops())
    return false;
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return op.getMatchingIndexingMap(&init).isIdentity();
  });
}

/// Whether `later` reads a value computed from `earlier`'s results (in the
/// same block, through any chain of ops after `earlier`).
bool dependsOn(Operation *later, Operation *earlier) {
  Block *block = earlier->getBlock();
  SmallVector<Operation *> worklist{later};
  DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    bool found = false;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        while (def && def->getBlock() != block)
          def = def->getParentOp();
        if (!def || (def != earlier && !earlier->isBeforeInBlock(def)))
          continue;
        if (def == earlier) {
          found = true;
          return WalkResult::interrupt();
        }
        worklist.push_back(def);
      }
      return WalkResult::advance();
    });
    if (found)
      return true;
  }
  return false;
}

/// `a` and `b` (a before b, independent) as one generic at `b`'s place:
/// the inputs and outputs of both, the body of `a` then of `b`.
linalg::GenericOp mergeSiblings(RewriterBase &rewriter, linalg::GenericOp a,
                                linalg::GenericOp b) {
  SmallVector<Value> inputs(a.getDpsInputs()), inits(a.getDpsInits());
  llvm::append_range(inputs, b.getDpsInputs());
  llvm::append_range(inits, b.getDpsInits());
  // Inputs of a, inputs of b, inits of a, inits of b (each op's maps are
  // its inputs' then its inits').
  unsigned aIn = a.getNumDpsInputs(), bIn = b.getNumDpsInputs();
  SmallVector<AffineMap> aMaps = a.getIndexingMapsArray();
  SmallVector<AffineMap> bMaps = b.getIndexingMapsArray();
  SmallVector<AffineMap> maps(aMaps.begin(), aMaps.begin() + aIn);
  maps.append(bMaps.begin(), bMaps.begin() + bIn);
  maps.append(aMaps.begin() + aIn, aMaps.end());
  maps.append(bMaps.begin() + bIn, bMaps.end());
  SmallVector<Type> types(a.getResultTypes());
  llvm::append_range(types, b.getResultTypes());
  rewriter.setInsertionPoint(b);
  auto merged = linalg::GenericOp::create(
      rewriter, b.getLoc(), types, inputs, inits, maps,
      b.getIteratorTypesArray(),
      [&](OpBuilder &builder, Location, ValueRange args) {
        unsigned aOut = a.getNumDpsInits();
        IRMapping mapping;
        Block *aBody = a.getBody(), *bBody = b.getBody();
        for (unsigned i = 0; i < aIn; ++i)
          mapping.map(aBody->getArgument(i), args[i]);
        for (unsigned i = 0; i < bIn; ++i)
          mapping.map(bBody->getArgument(i), args[aIn + i]);
        for (unsigned i = 0; i < aOut; ++i)
          mapping.map(aBody->getArgument(aIn + i), args[aIn + bIn + i]);
        for (unsigned i = 0; i < b.getNumDpsInits(); ++i)
          mapping.map(bBody->getArgument(bIn + i), args[aIn + bIn + aOut + i]);
        SmallVector<Value> yielded;
        for (Block *body : {aBody, bBody}) {
          for (Operation &op : body->without_terminator())
            builder.clone(op, mapping);
          for (Value v : body->getTerminator()->getOperands())
            yielded.push_back(mapping.lookupOrDefault(v));
        }
        linalg::YieldOp::create(builder, b.getLoc(), yielded);
      });
  for (NamedAttribute attr : b->getDiscardableAttrs())
    merged->setAttr(attr.getName(), attr.getValue());
  rewriter.replaceOp(a, merged.getResults().take_front(a.getNumResults()));
  rewriter.replaceOp(b, merged.getResults().drop_front(a.getNumResults()));
  return merged;
}

/// Merges the independent elementwise siblings of each group, each pair
/// with the same static loops (the earlier one's results read only after
/// the later one, where the merged generic goes).
void mergeSiblingGenerics(func::FuncOp func, RewriterBase &rewriter) {
  // Only groups of elementwise work: in a group with a reduction (a layer
  // norm's rows, whose output and residual sum stay apart) the kernel
  // strategies expect each elementwise generic on its own.
  DenseSet<int64_t> mixed;
  func.walk([&](Operation *op) {
    std::optional<int64_t> group = getFusionGroup(op);
    if (!group)
      return;
    // (Tagged tensor.empty and fill inits are not kernels.)
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (linalgOp && !isa<linalg::FillOp>(op) &&
        linalgOp.getNumParallelLoops() != linalgOp.getNumLoops())
      mixed.insert(*group);
  });
  for (Block &block : func.getBody()) {
    // The candidates of each group, in program order; a merge replaces
    // the pair with the merged generic at the later one's place, and the
    // group is searched again (groups are small: a few generics each).
    llvm::MapVector<int64_t, SmallVector<linalg::GenericOp>> byGroup;
    for (auto op : block.getOps<linalg::GenericOp>())
      if (isMergeableSibling(op) && !mixed.contains(*getFusionGroup(op)))
        byGroup[*getFusionGroup(op)].push_back(op);
    for (auto &[group, candidates] : byGroup) {
      bool changed = true;
      while (changed) {
        changed = false;
        for (size_t i = 0; i < candidates.size() && !changed; ++i)
          for (size_t j = i + 1; j < candidates.size() && !changed; ++j) {
            linalg::GenericOp a = candidates[i], b = candidates[j];
            if (a.getStaticLoopRanges() != b.getStaticLoopRanges())
              continue;
            bool usedBefore = llvm::any_of(a->getUsers(), [&](Operation *u) {
              while (u && u->getBlock() != &block)
                u = u->getParentOp();
              return !u || !b->isBeforeInBlock(u);
            });
            if (usedBefore || dependsOn(b, a))
              continue;
            candidates[j] = mergeSiblings(rewriter, a, b);
            candidates.erase(candidates.begin() + i);
            changed = true;
          }
      }
    }
  }
}

struct TgcFuseGroupElementwisePass
    : tgc::impl::TgcFuseGroupElementwiseBase<TgcFuseGroupElementwisePass> {
  using TgcFuseGroupElementwiseBase::TgcFuseGroupElementwiseBase;
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
    if (siblings)
      mergeSiblingGenerics(func, rewriter);
    // Fusion keeps the producer's results in the fused op when the
    // producer has other users; those copies are unused.
    RewritePatternSet patterns(&getContext());
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
