//===- GpuFormKernels.cpp - one GPU kernel per fusion group ---------------===//
//
// Runs on bufferized functions whose linalg ops carry their fusion group.
// Each group becomes kernels in a gpu.module (one block per row for row
// groups, a grid-stride loop with one thread per output element for the
// rest), launched with gpu.launch_func; contractions that cuBLASLt can run
// are tagged for the launch plan. Sizes are kernel operands, so a kernel
// serves every size of the specialization. This file is the driver: it
// cuts the function into segments and hands each to the strategy that
// SelectStrategy.cpp picks (Strategies.h lists them, one file each). GEMM
// matching is in GpuGemmMatching.cpp, the host function's preparation and
// clean-up in GpuHostFunction.cpp, which fusions are safe in
// ../LoopExtents.cpp.
//
//===----------------------------------------------------------------------===//

#include "GpuGemmMatching.h"
#include "GpuHostFunction.h"
#include "Strategies.h"
#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"
#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCGPUFORMKERNELS
#include "tgc/Transforms/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;

namespace {

constexpr int64_t kWarpSize = 32;

/// Emits the ops of one group segment (no GEMMs) as kernels and erases
/// them, recording the launch each op became in `kernelOf` (the last one,
/// for a tree's two stages; keys are erased ops: compare, never use).
LogicalResult emitSegment(KernelContext &ctx, ArrayRef<linalg::GenericOp> ops,
                          DenseMap<Operation *, Operation *> &kernelOf) {
  if (ops.empty())
    return success();
  const GpuTarget &target = ctx.target;
  if (isRowGroup(ops, ctx.sizeClasses) && !isLongVectorGroup(ops, target)) {
    if (failed(emitRowKernel(ctx, ops)))
      return failure();
    for (linalg::GenericOp op : ops)
      kernelOf[op] = ctx.lastLaunch;
  } else {
    for (size_t i = 0; i < ops.size(); ++i) {
      // A reduction (with the fill of its output before it, and the
      // elementwise ops after it that read it at its own points) as a
      // two-stage tree.
      size_t at = i;
      std::optional<Tree> tree;
      if (i + 1 < ops.size() && isFill(ops[i]) &&
          (tree = matchTree(ops[i + 1], target)) &&
          fillCovered(ops[i], ops[i + 1]))
        tree->fill = ops[at++];
      else
        tree = matchTree(ops[i], target); // (a fill is never a tree)
      if (tree) {
        tree->epilogues = treeEpilogues(*tree, ops.drop_front(at + 1), ctx.func,
                                        ctx.sizeClasses);
        if (failed(emitTreeKernels(ctx, *tree)))
          return failure();
        // (The last launch is the final stage's, after the first's.)
        for (size_t j = i; j <= at + tree->epilogues.size(); ++j)
          kernelOf[ops[j]] = ctx.lastLaunch;
        i = at + tree->epilogues.size();
        continue;
      }
      linalg::GenericOp op = ops[i];
      unsigned width = ctx.options.vectorize ? flatVectorWidth(op) : 0;
      if (failed(width ? emitFlatKernel(ctx, op, width)
                       : emitElementKernel(ctx, op)))
        return failure();
      kernelOf[op] = ctx.lastLaunch;
    }
  }
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
    for (auto [name, size] :
         {std::make_pair("block-size", int64_t(blockSize)),
          std::make_pair("row-block-size", int64_t(rowBlockSize))})
      if (size <= 0 || size % kWarpSize != 0 || size > 1024) {
        module.emitError() << name
                           << " must be a multiple of 32 in [32, 1024], got "
                           << size;
        return signalPassFailure();
      }
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
    }
  }

  LogicalResult runOnFunction(ModuleOp module, func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitOpError() << "has control flow; the GPU path needs a "
                                   "straight-line function";
    freshResults(func);
    readStridedViewsDirectly(func);
    copiesToGenerics(func);
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

    // Segments: runs of consecutive generics of one group, cut at GEMMs.
    SmallVector<SmallVector<linalg::GenericOp>> segments;
    std::optional<int64_t> current;
    bool open = false;
    unsigned loopsBefore = 0;
    SmallVector<linalg::GenericOp> generics;
    for (Operation &op : func.getBody().front())
      if (auto g = dyn_cast<linalg::GenericOp>(op))
        generics.push_back(g);
    DenseSet<Operation *> fusedEpilogues;
    for (size_t i = 0; i < generics.size(); ++i) {
      linalg::GenericOp op = generics[i];
      if (fusedEpilogues.contains(op))
        continue;
      bool transA = false, transB = false;
      SmallVector<unsigned> batch, m;
      unsigned n = 0, k = 0;
      if (matchGemm(op, transA, transB, batch, m, n, k)) {
        OpBuilder b(op);
        auto loops = [&](ArrayRef<unsigned> ds) {
          return b.getDenseI64ArrayAttr(
              SmallVector<int64_t>(ds.begin(), ds.end()));
        };
        op->setAttr("tgc.gemm", b.getUnitAttr());
        op->setAttr("tgc.gemm_trans_a", b.getBoolAttr(transA));
        op->setAttr("tgc.gemm_trans_b", b.getBoolAttr(transB));
        // The loops of each role, for the launch plan.
        op->setAttr("tgc.gemm_batch", loops(batch));
        op->setAttr("tgc.gemm_m", loops(m));
        op->setAttr("tgc.gemm_n", loops({n}));
        op->setAttr("tgc.gemm_k", loops({k}));
        // The GEMM overwrites its output: a zero fill right before it is
        // dead.
        if (i > 0 && !segments.empty() && !segments.back().empty() &&
            segments.back().back() == generics[i - 1]) {
          linalg::GenericOp prev = segments.back().back();
          if (isZeroFill(prev) && prev.getDpsInitOperand(0)->get() ==
                                      op.getDpsInitOperand(0)->get()) {
            segments.back().pop_back();
            prev->erase();
          }
        }
        // The elementwise op after it as cuBLASLt's epilogue (bias,
        // ReLU, tanh GELU, the rounding to a 16-bit output): the GEMM then
        // writes that op's output, and the op is only read by the launch
        // plan.
        if (gemmEpilogues && i + 1 < generics.size()) {
          linalg::GenericOp next = generics[i + 1];
          Value bias;
          StringRef kind = matchGemmEpilogue(op, next, bias);
          if (kind.empty() && onlyEpilogueReads(op, next))
            if (auto split = splitGemmEpilogue(op, next)) {
              generics[i + 1] = next = split->first;
              generics.insert(generics.begin() + i + 2, split->second);
              kind = matchGemmEpilogue(op, next, bias);
            }
          if (!kind.empty() && onlyEpilogueReads(op, next)) {
            op->setAttr("tgc.gemm_epilogue", b.getStringAttr(kind));
            next->setAttr("tgc.gemm_epilogue_of", b.getUnitAttr());
            fusedEpilogues.insert(next);
          }
        }
        open = false;
        continue;
      }
      std::optional<int64_t> group = getFusionGroup(op);
      // A loop nest between two generics ends the segment: one kernel
      // cannot run both across it.
      unsigned loops = llvm::count_if(hostLoops, [&](scf::ForOp loop) {
        return loop->isBeforeInBlock(op);
      });
      if (loops != loopsBefore)
        open = false;
      loopsBefore = loops;
      if (!open || !group || group != current) {
        segments.emplace_back();
        open = group.has_value();
      }
      current = group;
      segments.back().push_back(op);
    }
    KernelContext ctx(func, gpuModule,
                      KernelOptions{blockSize, rowBlockSize, maxBlocks,
                                    vectorize, rowRegisters},
                      GpuTarget::h100());
    DenseMap<Operation *, Operation *> kernelOf;
    // The generics that write each check's flag; a check follows the
    // kernels they become.
    DenseMap<Operation *, SmallVector<linalg::GenericOp>> producers =
        flagProducers(func);
    for (ArrayRef<linalg::GenericOp> segment : segments)
      if (failed(emitSegment(ctx, segment, kernelOf)))
        return failure();
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
      if (failed(emitLoopKernel(ctx, loop)))
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
