//===- ParallelIf.cpp - fork only for enough work, sizes known at run time ===//
//
// An omp.parallel whose worksharing loop or deepest inner loop chain has a
// dynamic bound gets an `if` clause: the region runs on the calling thread
// when the call's trip counts multiplied are below min-work (issue 20, part
// 5; the static case is tgc-serialize-small-loops).
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCPARALLELIF
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

/// The scf.for loops of the deepest loop chain nested in `body`, outermost
/// first (the loops that run the most iterations per iteration of the
/// region's loop); none when the body holds a data-dependent loop.
std::optional<SmallVector<scf::ForOp>> innerChain(Region &body) {
  SmallVector<scf::ForOp> deepest;
  bool known = true;
  body.walk([&](Operation *op) {
    if (isa<scf::WhileOp, omp::ParallelOp>(op)) {
      known = false;
      return WalkResult::interrupt();
    }
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!forOp)
      return WalkResult::advance();
    SmallVector<scf::ForOp> chain;
    for (Operation *p = forOp; p && body.isAncestor(p->getParentRegion());
         p = p->getParentOp())
      if (auto f = dyn_cast<scf::ForOp>(p))
        chain.insert(chain.begin(), f);
    if (chain.size() > deepest.size())
      deepest = chain;
    return WalkResult::advance();
  });
  if (!known)
    return std::nullopt;
  return deepest;
}

struct TgcParallelIfPass : impl::TgcParallelIfBase<TgcParallelIfPass> {
  using TgcParallelIfBase::TgcParallelIfBase;

  void runOnOperation() override {
    getOperation().walk([&](omp::ParallelOp parallel) {
      if (parallel.getIfExpr() || parallel->getParentOfType<omp::ParallelOp>())
        return;
      // The one worksharing loop nest of the region.
      omp::LoopNestOp nest;
      unsigned nests = 0;
      parallel.getRegion().walk([&](omp::LoopNestOp n) {
        nest = n;
        ++nests;
      });
      if (nests != 1)
        return;
      // The work: the nest's trip counts times those of the deepest chain
      // of loops in its body, all bounds computable before the region.
      std::optional<SmallVector<scf::ForOp>> chain =
          innerChain(nest.getRegion());
      if (!chain)
        return;
      SmallVector<std::tuple<Value, Value, Value>> dims;
      for (auto [lb, ub, step] :
           llvm::zip(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                     nest.getLoopSteps()))
        dims.push_back({lb, ub, step});
      for (scf::ForOp f : *chain)
        dims.push_back({f.getLowerBound(), f.getUpperBound(), f.getStep()});
      bool outside = true, dynamic = false;
      for (auto [lb, ub, step] : dims)
        for (Value v : {lb, ub, step}) {
          outside &= !parallel.getRegion().isAncestor(v.getParentRegion());
          dynamic |= !getConstantIntValue(v).has_value();
        }
      if (!outside || !dynamic)
        return;
      OpBuilder b(parallel);
      Location loc = parallel.getLoc();
      Type index = b.getIndexType();
      auto cast = [&](Value v) -> Value {
        return v.getType().isIndex()
                   ? v
                   : b.create<arith::IndexCastOp>(loc, index, v).getResult();
      };
      Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
      Value work = b.create<arith::ConstantIndexOp>(loc, 1);
      for (auto [lb, ub, step] : dims) {
        // max(ub - lb, 0) ceil-divided by the step.
        Value span = b.create<arith::SubIOp>(loc, cast(ub), cast(lb));
        span = b.create<arith::MaxSIOp>(loc, span, zero);
        Value n = b.create<arith::CeilDivSIOp>(loc, span, cast(step));
        work = b.create<arith::MulIOp>(loc, work, n);
      }
      Value bound = b.create<arith::ConstantIndexOp>(loc, minWork);
      Value big = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge,
                                          work, bound);
      parallel.getIfExprMutable().assign(big);
    });
  }
};
} // namespace
} // namespace mlir::tgc
