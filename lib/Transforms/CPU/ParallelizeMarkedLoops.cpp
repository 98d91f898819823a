//===- ParallelizeMarkedLoops.cpp - tgc.parallel loops as scf.parallel ----===//
//
// The outer loops of tgc-to-linalg's sequential lowerings that it marks
// tgc.parallel (their iterations write disjoint elements) become one
// scf.parallel per nest after bufferization, so that the CPU runs them on
// OpenMP's threads as the GPU runs them on its threads.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCPARALLELIZEMARKEDLOOPS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

bool isMarked(scf::ForOp loop) {
  return loop->hasAttr(kParallelLoopAttrName) && loop.getNumResults() == 0;
}

struct TgcParallelizeMarkedLoopsPass
    : impl::TgcParallelizeMarkedLoopsBase<TgcParallelizeMarkedLoopsPass> {
  using TgcParallelizeMarkedLoopsBase::TgcParallelizeMarkedLoopsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> roots;
    getOperation().walk([&](scf::ForOp loop) {
      if (!isMarked(loop))
        return;
      // Outermost: not inside another marked loop or a parallel loop.
      for (Operation *p = loop->getParentOp(); p; p = p->getParentOp())
        if (isa<scf::ParallelOp, scf::ForallOp>(p) ||
            (isa<scf::ForOp>(p) && isMarked(cast<scf::ForOp>(p))))
          return;
      roots.push_back(loop);
    });
    for (scf::ForOp root : roots)
      parallelize(root);
  }

  /// `root` and the marked loops perfectly nested in it (each holding only
  /// the next), whose bounds are defined outside `root`, as one
  /// scf.parallel around the innermost one's body.
  void parallelize(scf::ForOp root) {
    SmallVector<scf::ForOp> nest = {root};
    while (true) {
      Block *body = nest.back().getBody();
      auto next = body->getOperations().size() == 2
                      ? dyn_cast<scf::ForOp>(body->front())
                      : scf::ForOp();
      if (!next || !isMarked(next) ||
          llvm::any_of(next->getOperands(), [&](Value v) {
            return root.getRegion().isAncestor(v.getParentRegion());
          }))
        break;
      nest.push_back(next);
    }
    SmallVector<Value> lbs, ubs, steps;
    for (scf::ForOp l : nest) {
      lbs.push_back(l.getLowerBound());
      ubs.push_back(l.getUpperBound());
      steps.push_back(l.getStep());
    }
    OpBuilder b(root);
    auto par = scf::ParallelOp::create(b, root.getLoc(), lbs, ubs, steps);
    IRMapping map;
    for (auto [l, iv] : llvm::zip(nest, par.getInductionVars()))
      map.map(l.getInductionVar(), iv);
    b.setInsertionPointToStart(par.getBody());
    for (Operation &op : nest.back().getBody()->without_terminator())
      b.clone(op, map);
    root.erase();
  }
};

} // namespace
} // namespace mlir::tgc
