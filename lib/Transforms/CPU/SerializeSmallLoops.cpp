//===- SerializeSmallLoops.cpp - small kernels without a parallel region --===//
//
// An outermost scf.parallel whose work is known and below min-work becomes
// nested scf.for loops, so convert-scf-to-openmp leaves it serial: a fork
// and join cost more than a tiny kernel's work (issue 20, part 5).
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCSERIALIZESMALLLOOPS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

/// Iterations of one loop dimension, when its bounds are constants.
std::optional<int64_t> tripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb);
  std::optional<int64_t> u = getConstantIntValue(ub);
  std::optional<int64_t> s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u <= *l ? 0 : (*u - *l + *s - 1) / *s;
}

/// Saturating product (work estimates only need to compare with a limit).
int64_t times(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/// The work of `loop`: its iterations times the largest product of trip
/// counts along the scf.for loops nested in its body; none when a bound is
/// not a constant.
std::optional<int64_t> work(scf::ParallelOp loop) {
  int64_t iterations = 1;
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> n = tripCount(lb, ub, step);
    if (!n)
      return std::nullopt;
    iterations = times(iterations, *n);
  }
  int64_t inner = 1;
  bool known = true;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<scf::ParallelOp, scf::WhileOp>(op)) {
      known = false; // nested parallelism or a data-dependent loop
      return WalkResult::interrupt();
    }
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!forOp)
      return WalkResult::advance();
    int64_t path = 1;
    for (Operation *p = forOp; p && p != loop; p = p->getParentOp()) {
      auto f = dyn_cast<scf::ForOp>(p);
      if (!f)
        continue;
      std::optional<int64_t> n =
          tripCount(f.getLowerBound(), f.getUpperBound(), f.getStep());
      if (!n) {
        known = false;
        return WalkResult::interrupt();
      }
      path = times(path, *n);
    }
    inner = std::max(inner, path);
    return WalkResult::advance();
  });
  if (!known)
    return std::nullopt;
  return times(iterations, inner);
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
