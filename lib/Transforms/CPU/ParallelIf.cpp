//===- ParallelIf.cpp - fork only for enough work, sizes known at run time ===//
//
// An omp.parallel whose worksharing loop or deepest inner loop chain has a
// dynamic bound gets an `if` clause: the region runs on the calling thread
// when the call's trip counts multiplied are below min-work (issue 20, part
// 5; the static case is tgc-serialize-small-loops).
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "LoopWork.h"

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
          deepestForChain<omp::ParallelOp>(nest.getRegion());
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
                   : arith::IndexCastOp::create(b, loc, index, v).getResult();
      };
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value work = arith::ConstantIndexOp::create(b, loc, 1);
      for (auto [lb, ub, step] : dims) {
        // max(ub - lb, 0) ceil-divided by the step.
        Value span = arith::SubIOp::create(b, loc, cast(ub), cast(lb));
        span = arith::MaxSIOp::create(b, loc, span, zero);
        Value n = arith::CeilDivSIOp::create(b, loc, span, cast(step));
        work = arith::MulIOp::create(b, loc, work, n);
      }
      Value bound = arith::ConstantIndexOp::create(b, loc, minWork);
      Value big = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          work, bound);
      parallel.getIfExprMutable().assign(big);
    });
  }
};
} // namespace
} // namespace mlir::tgc
