//===- LoopKernels.cpp - host loop nests as kernels
//-------------------------===//
//
// The loop strategy: a sequential host loop nest (topk, cholesky) as one
// kernel. Its outer loops marked tgc.parallel become a thread per
// iteration in a grid-stride loop; the rest runs in each thread as it ran
// on the host.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"
#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;

namespace {

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
    for (scf::ForOp l = loop; l;) {
      Value ub = l.getUpperBound();
      if (!l->hasAttr(kParallelLoopAttrName) || l.getNumResults() != 0 ||
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
