//===- HoistAllocas.cpp - fixed-size stack buffers out of loops -----------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCHOISTALLOCAS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {
struct TgcHoistAllocasPass : impl::TgcHoistAllocasBase<TgcHoistAllocasPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<memref::AllocaOp> allocas;
    func.walk([&](memref::AllocaOp a) {
      if (a.getType().hasStaticShape() && a.getDynamicSizes().empty() &&
          a->getParentOp() != func)
        allocas.push_back(a);
    });
    for (memref::AllocaOp a : allocas) {
      // The nearest parallel region (per thread) or the function.
      Region *target = &func.getBody();
      for (Operation *p = a->getParentOp(); p && p != func;
           p = p->getParentOp())
        if (isa<omp::ParallelOp>(p)) {
          target = &p->getRegion(0);
          break;
        }
      a->moveBefore(&target->front(), target->front().begin());
    }
    // Inline the scopes, innermost first.
    SmallVector<memref::AllocaScopeOp> scopes;
    func.walk([&](memref::AllocaScopeOp s) { scopes.push_back(s); });
    IRRewriter rewriter(&getContext());
    for (memref::AllocaScopeOp scope : scopes) {
      bool hasAlloca = false;
      scope.getBodyRegion().walk([&](memref::AllocaOp) { hasAlloca = true; });
      if (hasAlloca || !scope.getBodyRegion().hasOneBlock())
        continue; // a dynamically sized alloca keeps its scope
      Block &body = scope.getBodyRegion().front();
      Operation *terminator = body.getTerminator();
      SmallVector<Value> results(terminator->getOperands());
      rewriter.eraseOp(terminator);
      rewriter.inlineBlockBefore(&body, scope);
      rewriter.replaceOp(scope, results);
    }
  }
};
} // namespace
} // namespace mlir::tgc
