//===- GpuFormKernels.cpp - build the kernels that were chosen ------------===//
//
// tgc-gpu-form-kernels: runs after tgc-gpu-select-strategy
// (SelectStrategy.cpp), which wrote a #tgc_gpu.strategy on every generic and
// host loop nest that a kernel runs and a #tgc_gpu.gemm on every contraction
// cuBLASLt runs. The generics of each kernel number become kernels in a
// gpu.module, launched with gpu.launch_func, built by the strategy's file
// (Strategies.h lists them); GEMMs stay on the host for the launch plan. Sizes
// are kernel operands, so a kernel serves every size of the specialization. The
// host function's checks and clean-up are in GpuHostFunction.cpp.
//
//===----------------------------------------------------------------------===//

#include "GpuHostFunction.h"
#include "Strategies.h"
#include "tgc/Transforms/GuardUtils.h"
#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCGPUFORMKERNELS
#include "tgc/Transforms/GPU/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;
using tgc_gpu::StrategyAttr;
using tgc_gpu::StrategyKind;
using tgc_gpu::TgcGpuDialect;

namespace {

/// Builds the kernel(s) of `ops`, the generics that share one
/// #tgc_gpu.strategy kernel number, and erases them, recording the launch
/// each op became in `kernelOf` (the last one, for a tree's two stages;
/// keys are erased ops: compare, never use).
LogicalResult emitKernel(KernelContext &ctx, ArrayRef<linalg::GenericOp> ops,
                         StrategyAttr strategy,
                         DenseMap<Operation *, Operation *> &kernelOf) {
  linalg::GenericOp first = ops.front();
  auto single = [&]() -> LogicalResult {
    if (ops.size() == 1)
      return success();
    return linalg::GenericOp(ops[1]).emitOpError()
           << "shares kernel " << strategy.getKernel() << " of kind "
           << tgc_gpu::stringifyStrategyKind(strategy.getKind())
           << " with another op; that kind runs one op per kernel";
  };
  switch (strategy.getKind()) {
  case StrategyKind::row:
    if (failed(emitRowKernel(ctx, ops, strategy)))
      return failure();
    break;
  case StrategyKind::tree: {
    // The fill of the output, the reduction, the epilogues.
    auto reduction = llvm::find_if(ops, [](linalg::GenericOp op) {
      return op.getNumReductionLoops() != 0;
    });
    std::optional<Tree> tree;
    if (reduction != ops.end())
      tree = matchTree(*reduction, ctx.target);
    size_t at = reduction - ops.begin();
    if (!tree || at > 1 ||
        (at == 1 && !(isScalarFill(first) && fillCovered(first, *reduction))))
      return first.emitOpError()
             << "is in tree kernel " << strategy.getKernel()
             << ", which is not a fill, a tree reduction and its epilogues";
    if (at == 1)
      tree->fill = first;
    tree->epilogues.assign(ops.begin() + at + 1, ops.end());
    if (failed(emitTreeKernels(ctx, *tree, strategy)))
      return failure();
    break;
  }
  case StrategyKind::flat:
    if (failed(single()) || failed(emitFlatKernel(ctx, first, strategy)))
      return failure();
    break;
  case StrategyKind::element:
    if (failed(single()) || failed(emitElementKernel(ctx, first, strategy)))
      return failure();
    break;
  case StrategyKind::loop:
    return first.emitOpError() << "has a loop strategy; only scf.for has one";
  }
  for (linalg::GenericOp op : ops)
    kernelOf[op] = ctx.lastLaunch;
  for (linalg::GenericOp op : llvm::reverse(ops))
    op->erase();
  return success();
}

} // namespace

Value mlir::tgc::resultBase(Value result) {
  Value base = result;
  while (Operation *def = base.getDefiningOp()) {
    if (auto e = dyn_cast<memref::ExpandShapeOp>(def))
      base = e.getSrc();
    else if (auto c = dyn_cast<memref::CollapseShapeOp>(def))
      base = c.getSrc();
    else if (auto c = dyn_cast<memref::CastOp>(def))
      base = c.getSource();
    else
      break;
  }
  return base;
}

namespace {
struct TgcGpuFormKernelsPass
    : tgc::impl::TgcGpuFormKernelsBase<TgcGpuFormKernelsPass> {
  using TgcGpuFormKernelsBase::TgcGpuFormKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (!func.isExternal() && failed(runOnFunction(module, func)))
        return signalPassFailure();
    // 64-bit shuffles (f64 sums of f32 rows) become pairs of 32-bit ones;
    // integer powers become loops.
    RewritePatternSet patterns(&getContext());
    populateGpuShufflePatterns(patterns);
    populateIPowIToLoopPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      if (failed(applyPatternsGreedily(gpuModule, frozen)))
        return signalPassFailure();
      if (!exactDivision)
        divisionsToReciprocals(gpuModule);
      // Checks inside kernels (tgc-to-linalg's index-checks-in-kernels)
      // say where they are, as the launch plan's check steps do: the
      // device prints the message (__assertfail).
      gpuModule.walk([](cf::AssertOp assert) {
        std::string where = formatLocation(assert.getLoc());
        if (where != "unknown location")
          assert.setMsg(assert.getMsg().str() + " at " + where);
      });
    }
  }

  LogicalResult runOnFunction(ModuleOp module, func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitOpError() << "has control flow; the GPU path needs a "
                                   "straight-line function";
    // Ops that must stay on the host but cannot: reject before building.
    // Constants other than scalars read by kernels: their data becomes a
    // global of the kernel module, which kernels and GEMMs read through
    // the plan (cuModuleGetGlobal), with no copy per call.
    SmallVector<memref::GlobalOp> deviceGlobals;
    SmallVector<scf::ForOp> hostLoops;
    for (Operation &op : func.getBody().front()) {
      if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
        bool scalarUse =
            splatGlobal(get.getResult()) &&
            llvm::all_of(get.getResult().getUses(), [](OpOperand &use) {
              auto g = dyn_cast<linalg::GenericOp>(use.getOwner());
              return g && g.isDpsInput(&use);
            });
        auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
            get, get.getNameAttr());
        if (!scalarUse) {
          if (!global || !global.getConstant() ||
              !isa_and_nonnull<ElementsAttr>(global.getInitialValueAttr()))
            return get.emitOpError()
                   << "reads a global that is not an initialized constant; "
                      "the GPU path only has constants";
          for (OpOperand &use : get.getResult().getUses())
            if (auto g = dyn_cast<linalg::GenericOp>(use.getOwner());
                g && !g.isDpsInput(&use))
              return use.getOwner()->emitOpError()
                     << "writes a constant; not supported on the GPU";
          if (!llvm::is_contained(deviceGlobals, global))
            deviceGlobals.push_back(global);
        }
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        // A sequential loop nest (topk, cholesky): a kernel of its own.
        // Everything in it must be able to run in a kernel.
        WalkResult legal = loop.walk([](Operation *nested) {
          if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
                  func::CallOp>(nested) ||
              nested->getName().getDialectNamespace() == "cf") {
            nested->emitOpError() << "inside a sequential loop cannot run "
                                     "in a GPU kernel; not supported on the "
                                     "GPU yet";
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        });
        if (legal.wasInterrupted())
          return failure();
        if (!loop->use_empty())
          return loop.emitOpError()
                 << "is a sequential loop whose results the host reads; not "
                    "supported on the GPU yet";
        hostLoops.push_back(loop);
        continue;
      }
      if (op.getNumRegions() != 0 && !isa<linalg::GenericOp>(op))
        return op.emitOpError()
               << "is control flow on the host; not supported on the GPU yet";
      if (isShapeAccess(&op) || isFlagCheck(&op))
        continue;
      if (isa<memref::LoadOp, memref::StoreOp>(op))
        return op.emitOpError()
               << "reads or writes device memory from the host; not "
                  "supported on the GPU";
    }

    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(
        mb, func.getLoc(), (func.getSymName() + "_kernels").str());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    mb.getUnitAttr());
    // Public, so that the module keeps it and the runtime finds it by name;
    // aligned for the kernels' 16-byte vector loads.
    OpBuilder gb = OpBuilder::atBlockBegin(gpuModule.getBody());
    for (memref::GlobalOp global : deviceGlobals) {
      auto copy = cast<memref::GlobalOp>(gb.clone(*global));
      SymbolTable::setSymbolVisibility(copy, SymbolTable::Visibility::Public);
      copy.setAlignment(
          std::max<uint64_t>(global.getAlignment().value_or(1), 16));
    }

    KernelContext ctx(func, gpuModule, KernelOptions{maxBlocks},
                      GpuTarget::h100());
    // The generics that write each check's flag; a check follows the
    // kernels they become.
    DenseMap<Operation *, SmallVector<linalg::GenericOp>> producers =
        flagProducers(func);
    // Kernels: consecutive generics with one kernel number, in order.
    SmallVector<linalg::GenericOp> generics(
        func.getBody().front().getOps<linalg::GenericOp>());
    DenseMap<Operation *, Operation *> kernelOf;
    for (size_t i = 0; i < generics.size();) {
      linalg::GenericOp op = generics[i];
      if (op->hasAttr(TgcGpuDialect::kGemmAttrName) ||
          op->hasAttr(TgcGpuDialect::kGemmEpilogueOfAttrName) ||
          op->hasAttr(TgcGpuDialect::kConvAttrName)) {
        ++i;
        continue;
      }
      auto strategy =
          op->getAttrOfType<StrategyAttr>(TgcGpuDialect::kStrategyAttrName);
      if (!strategy)
        return op.emitOpError()
               << "has no tgc_gpu.strategy (run tgc-gpu-select-strategy "
                  "first)";
      size_t end = i + 1;
      while (end < generics.size()) {
        auto next = generics[end]->getAttrOfType<StrategyAttr>(
            TgcGpuDialect::kStrategyAttrName);
        if (!next || next.getKernel() != strategy.getKernel())
          break;
        if (next != strategy)
          return generics[end].emitOpError()
                 << "is in kernel " << strategy.getKernel()
                 << " with another strategy than the op before it";
        ++end;
      }
      if (failed(emitKernel(ctx, ArrayRef(generics).slice(i, end - i), strategy,
                            kernelOf)))
        return failure();
      i = end;
    }
    DenseMap<Operation *, Operation *> flagKernels;
    for (auto &[check, gens] : producers) {
      for (linalg::GenericOp g : gens) {
        Operation *launch = kernelOf.lookup(g.getOperation());
        Operation *&last = flagKernels[check];
        if (launch && (!last || last->isBeforeInBlock(launch)))
          last = launch;
      }
    }
    for (scf::ForOp loop : hostLoops) {
      auto strategy =
          loop->getAttrOfType<StrategyAttr>(TgcGpuDialect::kStrategyAttrName);
      if (!strategy || strategy.getKind() != StrategyKind::loop)
        return loop.emitOpError() << "has no tgc_gpu.strategy of kind loop "
                                     "(run tgc-gpu-select-strategy first)";
      if (failed(emitLoopKernel(ctx, loop, strategy)))
        return failure();
      loop->erase();
    }
    checksAfterTheirKernels(func, flagKernels);
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
      if (isa<memref::GetGlobalOp>(op) && op.use_empty())
        op.erase(); // splat constants, now inside the kernels
    for (Operation &op : func.getBody().front())
      if (!isHostOp(&op))
        return op.emitOpError() << "cannot run on the GPU path";
    return success();
  }
};

} // namespace
