//===- SerializeSmallLoops.cpp - small kernels without a parallel region --===//
//
// An outermost scf.parallel whose work is known and below min-work becomes
// nested scf.for loops, so convert-scf-to-openmp leaves it serial: a fork
// and join cost more than a tiny kernel's work (issue 20, part 5).
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "LoopWork.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCSERIALIZESMALLLOOPS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

/// The work of `loop` (LoopWork.h), when every bound is a constant.
std::optional<int64_t> work(scf::ParallelOp loop) {
  int64_t total = 1;
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> n = constantTripCount(lb, ub, step);
    if (!n)
      return std::nullopt;
    total = saturatingMul(total, *n);
  }
  std::optional<SmallVector<scf::ForOp>> chain =
      deepestForChain<scf::ParallelOp>(loop.getRegion());
  if (!chain)
    return std::nullopt;
  for (scf::ForOp f : *chain) {
    std::optional<int64_t> n =
        constantTripCount(f.getLowerBound(), f.getUpperBound(), f.getStep());
    if (!n)
      return std::nullopt;
    total = saturatingMul(total, *n);
  }
  return total;
}

struct TgcSerializeSmallLoopsPass
    : impl::TgcSerializeSmallLoopsBase<TgcSerializeSmallLoopsPass> {
  using TgcSerializeSmallLoopsBase::TgcSerializeSmallLoopsBase;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> small;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>() ||
          !loop.getInitVals().empty())
        return;
      std::optional<int64_t> w = work(loop);
      if (w && *w < minWork)
        small.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : small) {
      rewriter.setInsertionPoint(loop);
      if (failed(scf::parallelForToNestedFors(rewriter, loop)))
        return signalPassFailure();
    }
  }
};
} // namespace
} // namespace mlir::tgc
