//===- HoistAllocas.cpp - fixed-size stack buffers out of loops -----------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCHOISTALLOCAS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {
/// Brackets `op` (an op of the function's body) with a stack save and
/// restore; returns the save, after which the kernel's buffers go. (Not a
/// memref.alloca_scope: its one block would not survive scf-to-cf, which
/// runs before memref-to-llvm lowers it.)
Operation *bracketWithStackSave(IRRewriter &b, Operation *op) {
  b.setInsertionPoint(op);
  auto save = LLVM::StackSaveOp::create(
      b, op->getLoc(), LLVM::LLVMPointerType::get(b.getContext()));
  b.setInsertionPointAfter(op);
  LLVM::StackRestoreOp::create(b, op->getLoc(), save.getResult());
  return save;
}

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
    // Serial kernels' stack saves, by the kernel (the op in the function's
    // body that holds the alloca).
    llvm::DenseMap<Operation *, Operation *> kernelSaves;
    IRRewriter builder(&getContext());
    for (memref::AllocaOp a : allocas) {
      // The nearest parallel region (per thread): its buffers are freed
      // when the region's outlined function returns.
      Region *target = nullptr;
      Operation *kernel = a;
      for (Operation *p = a->getParentOp(); p && p != func;
           p = p->getParentOp()) {
        if (isa<omp::ParallelOp>(p)) {
          target = &p->getRegion(0);
          break;
        }
        kernel = p;
      }
      if (!target) {
        // A serial kernel (openmp=false, or a small one): its buffers go
        // just before it, between a stack save and a restore after it, so
        // that the stack holds one kernel's buffers at a time. At the
        // function's entry they added up over the kernels (64 KiB per
        // packed panel: a chain of 140 blocked matmuls overflowed it).
        Operation *&save = kernelSaves[kernel];
        if (!save)
          save = bracketWithStackSave(builder, kernel);
        a->moveAfter(save);
        continue;
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
