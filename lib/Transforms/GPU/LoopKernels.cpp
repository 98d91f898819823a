//===- LoopKernels.cpp - host loop nests as kernels
//-------------------------===//
//
// The loop strategy: a sequential host loop nest (topk, cholesky) as one
// kernel. Its outer loops marked tgc.parallel become a thread per
// iteration in a grid-stride loop; the rest runs in each thread as it ran
// on the host. Loops marked tgc.parallel_atomic_add (scatter_add's) become
// threads too where their element type has an atomic add: each
// read-modify-write of the result becomes a memref.atomic_rmw.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"
#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;

namespace {

/// The store of `store(add(load(m, I), v), m, I)`'s add operand `v` (the
/// update of a read-modify-write), or null.
Value updateOf(memref::StoreOp store) {
  Operation *add = store.getValue().getDefiningOp();
  if (!isa_and_nonnull<arith::AddFOp, arith::AddIOp>(add))
    return Value();
  for (unsigned i = 0; i < 2; ++i) {
    auto load = add->getOperand(i).getDefiningOp<memref::LoadOp>();
    if (load && load.getMemRef() == store.getMemRef() &&
        load.getIndices() == store.getIndices())
      return add->getOperand(1 - i);
  }
  return Value();
}

/// True when every store in `loop` (marked tgc.parallel_atomic_add) is a
/// read-modify-write add of an element type with an atomic add on the GPU
/// (every tgc numeric type: PTX has f16 and bf16 atomic adds on sm_90, and
/// LLVM makes i8's a compare-and-swap loop on its 32-bit word), so that its
/// iterations may run at once.
bool hasAtomicAdds(scf::ForOp loop) {
  WalkResult walk = loop.walk([](Operation *op) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store)
      return isa<memref::AtomicRMWOp>(op) ? WalkResult::interrupt()
                                          : WalkResult::advance();
    Type element = store.getMemRefType().getElementType();
    if (!updateOf(store) ||
        !(element.isF16() || element.isBF16() || element.isF32() ||
          element.isF64() || element.isInteger(8) || element.isInteger(32) ||
          element.isInteger(64)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// Makes every read-modify-write add in `region` atomic.
void makeAddsAtomic(Region &region) {
  SmallVector<memref::StoreOp> stores;
  region.walk([&](memref::StoreOp store) { stores.push_back(store); });
  for (memref::StoreOp store : stores) {
    Value update = updateOf(store);
    if (!update)
      continue;
    Operation *add = store.getValue().getDefiningOp();
    OpBuilder b(store);
    memref::AtomicRMWOp::create(b, store.getLoc(),
                                isa<FloatType>(update.getType())
                                    ? arith::AtomicRMWKind::addf
                                    : arith::AtomicRMWKind::addi,
                                update, store.getMemRef(), store.getIndices());
    store.erase();
    if (add->use_empty()) {
      SmallVector<Operation *> loads;
      for (Value v : add->getOperands())
        if (auto load = v.getDefiningOp<memref::LoadOp>())
          loads.push_back(load);
      add->erase();
      for (Operation *load : loads)
        if (load->use_empty())
          load->erase();
    }
  }
}

class LoopKernelEmitter : public KernelBuilder {
public:
  using KernelBuilder::KernelBuilder;

  /// Emits a sequential host loop nest (topk, cholesky) as one kernel
  /// (the caller erases the nest). Its outer loops marked tgc.parallel (from 0
  /// by 1, without results, each but the last holding only the next) become one
  /// thread per iteration in a grid-stride loop; the rest runs in each thread
  /// as it ran on the host. Without such loops the kernel is one thread.
  LogicalResult emitLoopKernel(scf::ForOp loop) {
    Location loc = loop.getLoc();
    Region &nest = loop.getRegion();
    SmallVector<scf::ForOp> par;
    bool atomic = false;
    for (scf::ForOp l = loop; l;) {
      Value ub = l.getUpperBound();
      bool parallel = l->hasAttr(kParallelLoopAttrName);
      if (!parallel && l->hasAttr(kAtomicAddLoopAttrName) && hasAtomicAdds(l))
        parallel = atomic = true;
      if (!parallel || l.getNumResults() != 0 ||
          !isConstantIntValue(l.getLowerBound(), 0) ||
          !isConstantIntValue(l.getStep(), 1) ||
          (l != loop && nest.isAncestor(ub.getParentRegion())))
        break;
      par.push_back(l);
      Block *body = l.getBody();
      l = body->getOperations().size() == 2
              ? dyn_cast<scf::ForOp>(body->front())
              : scf::ForOp();
    }
    if (failed(addOperands(loop)))
      return failure();

    OpBuilder hb(loop);
    OpBuilder kb = startKernel(loc, par.empty() ? "serial" : "loop");
    IRMapping map;
    if (par.empty()) {
      cloneInKernel(kb, *loop, nest, map);
      finishKernel(kb, hb, loc, arith::ConstantIndexOp::create(hb, loc, 1), 1);
      return success();
    }
    SmallVector<Value> sizes, hostSizes;
    for (scf::ForOp l : par) {
      hostSizes.push_back(l.getUpperBound());
      sizes.push_back(kval(kb, l.getUpperBound()));
    }
    Value total = product(kb, loc, sizes);
    auto [start, step] = gridStride(kb, loc);
    auto threads = scf::ForOp::create(kb, loc, start, total, step);
    OpBuilder lb = OpBuilder::atBlockBegin(threads.getBody());
    for (auto [l, iv] :
         llvm::zip(par, delinearize(lb, loc, threads.getInductionVar(), sizes)))
      map.map(l.getInductionVar(), iv);
    for (Operation &op : par.back().getBody()->without_terminator())
      cloneInKernel(lb, op, nest, map);
    if (atomic)
      makeAddsAtomic(threads.getRegion());
    finishKernel(
        kb, hb, loc,
        gridSize(hb, loc, product(hb, loc, hostSizes), blockSize, maxBlocks),
        blockSize);
    return success();
  }
};

} // namespace

LogicalResult gpu_kernels::emitLoopKernel(KernelContext &ctx, scf::ForOp loop,
                                          tgc_gpu::StrategyAttr strategy) {
  return LoopKernelEmitter(ctx, strategy).emitLoopKernel(loop);
}
