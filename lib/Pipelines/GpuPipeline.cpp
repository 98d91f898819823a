//===- GpuPipeline.cpp - tgc to GPU kernels and a host launch plan --------===//

#include "tgc/Pipelines/Pipelines.h"

#include "tgc/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tgc;

void mlir::tgc::buildGpuPipeline(OpPassManager &pm,
                                 const GpuPipelineOptions &options) {
  // Frontend: symbolic shapes and guards. The guard set stays declarative:
  // the launch plan carries it and the runtime checks it.
  FrontendPipelineOptions frontend;
  options.setFrontendOptions(frontend, "cuda", /*lowerGuards=*/false);
  buildFrontendPipeline(pm, frontend);

  // The f32 products PyTorch's flags let round to TF32, then fusion
  // groups, linalg on tensors, elementwise producers merged into their
  // group's consumers (a kernel's intermediates stay in registers).
  if (options.tf32Matmuls || options.tf32Convolutions) {
    TgcMarkTf32Options tf32;
    tf32.matmuls = options.tf32Matmuls;
    tf32.convolutions = options.tf32Convolutions;
    pm.addNestedPass<func::FuncOp>(createTgcMarkTf32(tf32));
  }
  // Permutes join the elementwise work around them (head splits and
  // merges): on the GPU a transposing copy fused into a kernel costs its
  // reads, where a kernel of its own costs a launch and a round trip. A
  // residual add after a reshape of a product moves above the reshape,
  // into the GEMM's group (cuBLASLt adds it).
  buildGraphPasses(pm, options.decompose, options.fuse,
                   /*gpuFusion=*/true);
  TgcToLinalgOptions toLinalg;
  toLinalg.im2colPads = true;
  toLinalg.libraryConvolutions = options.cudnnConvolutions;
  toLinalg.indexChecksInKernels = options.deviceAsserts;
  pm.addPass(createTgcToLinalg(toLinalg));
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(createTgcFuseGroupElementwise());
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // GEMMs read transposed operands themselves (cuBLASLt's transposes), not
  // a strided copy (after canonicalization: no identity copy hides a
  // slice).
  if (options.fuse) {
    pm.addNestedPass<func::FuncOp>(createTgcGpuFoldGemmTransposes());
    pm.addPass(createCanonicalizerPass());
  }
  // Checks of the inputs first: the launch plan waits for a call's checks
  // after the last one, then issues the rest without waiting.
  if (options.hoistChecks)
    pm.addNestedPass<func::FuncOp>(createTgcHoistChecks());

  // Each reduction writes its own zero-filled accumulator (CSE merged
  // them; bufferization would copy the shared one for all but one).
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(createTgcCloneSharedFills());
  // Bufferization and the arena, as on the CPU.
  // The launch plan evaluates sizes with overflow checks itself.
  // An argument updated in place by one elementwise kernel (p.add_(g))
  // is read there, not from a copy taken on entry.
  buildBufferizeAndPlanMemory(pm, /*checkedArenaSize=*/false,
                              /*readOutsInPlace=*/options.fuse);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Bufferization writes tensor.generate and tensor.pad as linalg.map.
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());

  // Kernels and launches; the host function keeps only sizes, buffers,
  // launches and GEMMs, which the launch plan is read from.
  TgcGpuSelectStrategyOptions strategies;
  strategies.blockSize = options.blockSize;
  strategies.vectorize = options.vectorize;
  strategies.rowBlockSize = options.rowBlockSize;
  strategies.longRowBlockSize = options.longRowBlockSize;
  strategies.rowRegisters = options.rowRegisters;
  strategies.gemmEpilogues = options.gemmEpilogues;
  pm.addPass(createTgcGpuSelectStrategy(strategies));
  TgcGpuFormKernelsOptions kernels;
  kernels.maxBlocks = options.maxBlocks;
  kernels.exactDivision = options.exactDivision;
  pm.addPass(createTgcGpuFormKernels(kernels));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // After canonicalization, so that copies that differ only in folded
  // constants compare equal.
  if (options.dedupKernels)
    pm.addPass(createTgcGpuDedupKernels());
  if (options.lowerKernels)
    buildGpuKernelsToNVVMPipeline(pm);
}

void mlir::tgc::buildGpuKernelsToNVVMPipeline(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Views (the flat 1-D views of vectorized kernels) as descriptor math.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(arith::createArithExpandOpsPass());
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  // Math ops without a libdevice function (trunc, ...) as LLVM intrinsics.
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::tgc::registerGpuPipeline() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "tgc-gpu-pipeline",
      "tgc to GPU kernels (NVVM) and a host function of launches, GEMMs and "
      "buffers for the launch plan: symbolic shapes, declarative guards, "
      "fusion, bufferization, arena planning, one kernel per fusion group",
      buildGpuPipeline);
}
