//===- CpuPipeline.cpp - tgc to LLVM for the host CPU ---------------------===//

#include "tgc/Pipelines/Pipelines.h"

#include "tgc/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tgc;

void mlir::tgc::buildCpuPipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options) {
  buildCpuFrontendPipeline(pm, options);
  buildCpuGraphToLoopsPipeline(pm, options);
}

void mlir::tgc::buildCpuFrontendPipeline(OpPassManager &pm,
                                         const CpuPipelineOptions &options) {
  // A function named like a library symbol the code calls (`exp`) would be
  // called in its place.
  pm.addPass(createTgcCheckSymbolNames());
  // Frontend: symbolic shapes and guards (kept as guard sets, lowered last).
  FrontendPipelineOptions frontend;
  // Guards are lowered right away: they check the tensor signature, which
  // bufferization turns into memrefs.
  options.setFrontendOptions(frontend, "cpu", /*lowerGuards=*/true);
  buildFrontendPipeline(pm, frontend);
}

void mlir::tgc::buildCpuGraphToLoopsPipeline(
    OpPassManager &pm, const CpuPipelineOptions &options) {
  // Fusion groups, then linalg on tensors with one parallel loop nest per
  // group; elementwise ops inside a loop fuse into each other.
  buildGraphPasses(pm, options.decompose, options.fuse);
  // A softmax's exps once per element (a row temporary), not once for its
  // sum and again for its result.
  TgcToLinalgOptions toLinalg;
  toLinalg.softmaxExpOnce = true;
  toLinalg.im2colBatchColumns = true;
  toLinalg.directConvolutions = options.directConvolutions;
  pm.addPass(createTgcToLinalg(toLinalg));
  TgcFormKernelsOptions kernels;
  kernels.fuseElementwise = options.fuse;
  pm.addNestedPass<func::FuncOp>(createTgcFormKernels(kernels));
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());
  // Contractions: the innermost loop is one the operands walk contiguously
  // (a matmul runs i, k, j), so that LLVM vectorizes it.
  pm.addNestedPass<func::FuncOp>(createTgcOrderLoops());
  if (options.reassociate)
    pm.addNestedPass<func::FuncOp>(createTgcReassociateReductions());
  // A softmax's row divided by its sum: one reciprocal per row, then
  // products, as PyTorch's CPU kernel.
  if (!options.exactDivision)
    pm.addNestedPass<func::FuncOp>(createTgcReciprocalDivisions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Bufferization: out buffers are written in place (empty tensors whose
  // value lands in an out buffer become that buffer).
  // Intermediate buffers become views of one arena per call; the small
  // per-iteration temporaries of a kernel go on the stack.
  // Each reduction writes its own zero-filled accumulator (CSE merged
  // them; bufferization would copy the shared one for all but one).
  pm.addNestedPass<func::FuncOp>(createTgcCloneSharedFills());
  buildBufferizeAndPlanMemory(pm, /*checkedArenaSize=*/true);
  bufferization::PromoteBuffersToStackPassOptions stack;
  stack.maxAllocSizeInBytes = kMaxStackBufferBytes;
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass(stack));
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // Returned arguments, views of them and constants leave the function as
  // bufferization.clone (a copy the caller owns).
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Identical kernels (a model's repeated layers) become one private
  // function that each calls, before the loop passes: those passes and
  // the lowering to LLVM then see each once (a 24-layer encoder's
  // linalg-to-loops and the canonicalization after it were a quarter of
  // its MLIR time, once per layer).
  pm.addPass(createTgcOutlineIdenticalKernels());

  // Loops: each kernel's scf.forall runs its iterations in parallel with
  // OpenMP; the loops inside an iteration are sequential (and vectorized
  // by LLVM).
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  // The independent loops of sequential lowerings (topk's rows, a
  // scatter's loops before its dim) in parallel too.
  pm.addNestedPass<func::FuncOp>(createTgcParallelizeMarkedLoops());
  // Copies into or out of strided views (a stack's pieces, a crop) as
  // parallel loops, not the runtime's element-at-a-time memrefCopy.
  pm.addNestedPass<func::FuncOp>(createTgcLowerStridedCopies());
  // Matrix products: register tiles of vectors (where the sums may keep
  // their order, or may be reordered); the rest becomes scalar loops that
  // LLVM vectorizes.
  pm.addNestedPass<func::FuncOp>(createTgcVectorizeContractions());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  if (options.openmp) {
    // Tiny kernels do not pay for a parallel region.
    pm.addNestedPass<func::FuncOp>(createTgcSerializeSmallLoops());
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addNestedPass<func::FuncOp>(createTgcParallelIf());
  }
  pm.addNestedPass<func::FuncOp>(createTgcHoistAllocas());
  if (options.approximateMath)
    pm.addPass(createTgcApproximateMath());
  if (!options.lowerToLLVM)
    return;
  buildCpuLoopsToLLVMPipeline(pm);
}

void mlir::tgc::buildCpuLoopsToLLVMPipeline(OpPassManager &pm) {
  // `_mlir_ciface_<f>` wrappers (memref descriptors by pointer): the entry
  // points of objects and shared objects (tgc-translate --tgc-to-object).
  pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  // Every kernel its own private function, identical ones (a model's
  // layers) one function that each calls: lowered and compiled once, and
  // the entry keeps only the glue, which LLVM compiles with generic
  // scheduling (prepareEntryFunctions). (After the C wrappers are
  // requested: the outlined functions need none.)
  TgcOutlineIdenticalKernelsOptions outline;
  outline.everyKernel = true;
  pm.addPass(createTgcOutlineIdenticalKernels(outline));
  // Failed data checks (a gather's indices, a zero divisor) report to the
  // runtime and the call fails, instead of an abort.
  pm.addPass(createTgcReportChecks());
  // Returned buffers are the caller's tensors, written in place (no copy
  // after the call): tagged here, checked like any allocation, then
  // lowered to the runtime's tgc_result_buffer.
  pm.addPass(createTgcMarkResultBuffers());
  // A failed allocation or a byte count that overflows ends the call with
  // an error instead of a crash or heap corruption. (After the C wrappers
  // are requested: the runtime functions it declares take none.)
  pm.addPass(createTgcCheckAllocations());
  pm.addPass(createTgcLowerResultBuffers());
  // The arena from the runtime's per-thread cache: repeated calls reuse
  // memory whose pages are already mapped.
  pm.addPass(createTgcLowerArena());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Outer loops stay loops in LLVM: fully unrolling one copies its inner
  // loops, each vectorized again (a linear kernel's LLVM work 2.4x).
  pm.addNestedPass<func::FuncOp>(createTgcKeepOuterLoops());
  pm.addPass(createSCFToControlFlowPass());
  // The register tiles of matrix products (tgc-vectorize-contractions):
  // masks of a known count, masked loads and stores, reductions.
  pm.addPass(createConvertVectorToLLVMPass());
  // Math: integer powers as functions; rsqrt as 1/sqrt (glibc has no
  // rsqrtf) and the exact ones as LLVM intrinsics; the rest through libm
  // (LLVM's expansions of expm1/log1p lose accuracy near 0).
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createTgcMathToIntrinsics());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::tgc::buildGraphPasses(OpPassManager &pm, bool decompose, bool fuse,
                                 bool gpuFusion) {
  pm.addPass(createCanonicalizerPass());
  if (decompose) {
    pm.addNestedPass<func::FuncOp>(createTgcDecompose());
    pm.addNestedPass<func::FuncOp>(createTgcSinkGathers());
  }
  if (fuse) {
    TgcFuseOptions options;
    options.permutes = gpuFusion;
    options.reshapes = gpuFusion;
    pm.addNestedPass<func::FuncOp>(createTgcFuse(options));
  }
}

void mlir::tgc::buildBufferizeAndPlanMemory(OpPassManager &pm,
                                            bool checkedArenaSize,
                                            bool readOutsInPlace) {
  // Empty-tensor elimination turns the init chain of a write_out value into
  // the out buffer; sound only when no other kernel shares that chain (CSE
  // merges the identical inits of sibling kernels).
  pm.addNestedPass<func::FuncOp>(createTgcUnshareInits());
  // A reshape of a tensor with a static size 0 would get a buffer type the
  // memref verifier rejects.
  pm.addNestedPass<func::FuncOp>(createTgcEmptyReshapes());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // A value written in place into its slice of a concat (empty-tensor
  // elimination) leaves a copy of that slice onto an identical subview:
  // CSE makes the two subviews one, and the self-copy folds.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  if (readOutsInPlace)
    pm.addNestedPass<func::FuncOp>(createTgcReadOutsInPlace());
  TgcPlanMemoryOptions plan;
  plan.checkedSize = checkedArenaSize;
  pm.addNestedPass<func::FuncOp>(createTgcPlanMemory(plan));
}

void mlir::tgc::registerCpuPipeline() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "tgc-cpu-pipeline",
      "tgc to the LLVM dialect for the host CPU: symbolic shapes and guards, "
      "linalg, fusion, bufferization with out buffers in place, OpenMP "
      "parallel loops, native guard functions",
      buildCpuPipeline);
}
