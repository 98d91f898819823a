//===- Pipelines.h - TGC's compilation pipelines ----------------*- C++ -*-===//

#ifndef TGC_PIPELINES_PIPELINES_H
#define TGC_PIPELINES_PIPELINES_H

#include "tgc/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::tgc {

/// The frontend options the CPU and GPU pipelines share (`Derived` is the
/// pipeline's options struct), and the frontend pipeline's options they
/// stand for; also `decompose`, which both run before fusion.
template <typename Derived>
struct ShapePolicyOptions : public SizeOptions<Derived> {
  template <typename T, typename Parser = detail::PassOptions::OptionParser<T>>
  using Option = detail::PassOptions::Option<T, Parser>;
  Option<bool> decompose{
      *this, "decompose",
      llvm::cl::desc("Rewrite composites whose primitive form fuses or "
                     "lowers better (tgc-decompose)"),
      withDefault(true)};

  void setFrontendOptions(FrontendPipelineOptions &frontend, StringRef device,
                          bool lowerGuards) const {
    frontend.defaultPolicy = this->defaultPolicy;
    frontend.specializeZeroOne = this->specializeZeroOne;
    frontend.duckSizing = this->duckSizing;
    frontend.exampleShapes = SmallVector<std::string>(
        this->exampleShapes.begin(), this->exampleShapes.end());
    frontend.device = device.str();
    frontend.lowerGuards = lowerGuards;
  }
};

/// Options of tgc-cpu-pipeline: the frontend's plus code generation.
struct CpuPipelineOptions : public ShapePolicyOptions<CpuPipelineOptions> {
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse elementwise producers into consumers"),
                    withDefault(true)};
  Option<bool> openmp{*this, "openmp",
                      llvm::cl::desc("Run parallel loops with OpenMP"),
                      withDefault(true)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Polynomial approximations of f32 exp, log, log2, tanh "
                     "and erf (tgc-approximate-math) instead of libm"),
      withDefault(false)};
  Option<bool> directConvolutions{
      *this, "direct-convolutions",
      llvm::cl::desc("Ungrouped convolutions of stride 1 along the width as "
                     "window contractions over the padded input instead of "
                     "im2col patches and a matrix product (tgc-to-linalg)"),
      withDefault(true)};
  Option<bool> reassociate{
      *this, "reassociate",
      llvm::cl::desc("Let float reductions be reordered, so that they "
                     "vectorize (tgc-reassociate-reductions)"),
      withDefault(true)};
  Option<bool> exactDivision{
      *this, "exact-division",
      llvm::cl::desc("Keep every float division (off: a softmax's row is "
                     "multiplied by the reciprocal of its sum: "
                     "tgc-reciprocal-divisions)"),
      withDefault(false)};
  Option<bool> lowerToLLVM{
      *this, "lower-to-llvm",
      llvm::cl::desc("Lower to the LLVM dialect (off: stop after "
                     "bufferization and loops, for inspection)"),
      withDefault(true)};
};

/// tgc (with example sizes) -> symbolic shapes and guards -> linalg on
/// tensors -> fusion -> one-shot bufferization (out buffers in place) ->
/// parallel loops -> OpenMP -> LLVM dialect, with the guard functions.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// tgc-cpu-pipeline in two parts: the frontend (symbol names checked,
/// symbolic shapes, guards generated and lowered to their native functions
/// and strings, the `tgc_guard_*` symbols), and the rest (graph passes to
/// loops, and to the LLVM dialect with lower-to-llvm), which never reads
/// the guards' symbols: the compiler runs it without them (every pass
/// walked the guard function, most of the module: 132 guards of a 6-block
/// stack are 4500 ops, 70 of its 155 ms of MLIR passes).
void buildCpuFrontendPipeline(OpPassManager &pm,
                              const CpuPipelineOptions &options);
void buildCpuGraphToLoopsPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options);

/// The last stage of tgc-cpu-pipeline: loops, memrefs and OpenMP to the
/// LLVM dialect (used separately by tools that inspect the loops first).
void buildCpuLoopsToLLVMPipeline(OpPassManager &pm);

/// One-shot bufferization with function boundaries (identity layouts, out
/// buffers in place) and the arena plan: shared by the CPU and GPU
/// pipelines. `checkedArenaSize`: the arena's byte count is -1 when it
/// overflows (for tgc-check-allocations on the CPU).
void buildBufferizeAndPlanMemory(OpPassManager &pm, bool checkedArenaSize,
                                 bool readOutsInPlace = false);

/// The graph passes both pipelines run on `tgc` after the frontend:
/// canonicalization, tgc-decompose and tgc-fuse (each when asked for);
/// `gpuFusion`: tgc-fuse's GPU choices (permutes and reshapes).
void buildGraphPasses(OpPassManager &pm, bool decompose, bool fuse,
                      bool gpuFusion = false);

/// Registers tgc-cpu-pipeline.
void registerCpuPipeline();


/// The defaults of the GPU kernel options: tgc-gpu-select-strategy's and
/// tgc-gpu-form-kernels' (Passes.td), the one place they are written.
inline const TgcGpuSelectStrategyOptions kGpuStrategyDefaults{};
inline const TgcGpuFormKernelsOptions kGpuKernelDefaults{};

/// Options of tgc-gpu-pipeline: the frontend's plus kernel generation.
struct GpuPipelineOptions : public ShapePolicyOptions<GpuPipelineOptions> {
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fusion groups (off: one kernel per op)"),
                    withDefault(true)};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            withDefault(kGpuStrategyDefaults.blockSize)};
  Option<int64_t> rowBlockSize{
      *this, "row-block-size",
      llvm::cl::desc("Threads per block of row kernels"),
      withDefault(kGpuStrategyDefaults.rowBlockSize)};
  Option<int64_t> longRowBlockSize{
      *this, "long-row-block-size",
      llvm::cl::desc("Threads per block of row kernels over static rows of "
                     "at least 16384 elements (0: row-block-size)"),
      withDefault(kGpuStrategyDefaults.longRowBlockSize)};
  Option<int64_t> maxBlocks{
      *this, "max-blocks",
      llvm::cl::desc("Most blocks of a grid-stride kernel"),
      withDefault(kGpuKernelDefaults.maxBlocks)};
  Option<bool> rowRegisters{
      *this, "row-registers",
      llvm::cl::desc("Row kernels keep static rows in registers"),
      withDefault(kGpuStrategyDefaults.rowRegisters)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("16-byte vector accesses in elementwise kernels"),
      withDefault(kGpuStrategyDefaults.vectorize)};
  Option<bool> gemmEpilogues{
      *this, "gemm-epilogues",
      llvm::cl::desc("GEMM consumers as cuBLASLt epilogues (bias, ReLU, "
                     "tanh GELU)"),
      withDefault(kGpuStrategyDefaults.gemmEpilogues)};
  Option<bool> tf32Matmuls{
      *this, "tf32-matmuls",
      llvm::cl::desc("f32 matmul, bmm and linear GEMMs may use TF32 "
                     "(tgc-mark-tf32; PyTorch's "
                     "torch.backends.cuda.matmul.allow_tf32)"),
      withDefault(false)};
  Option<bool> tf32Convolutions{
      *this, "tf32-convolutions",
      llvm::cl::desc("f32 convolution GEMMs may use TF32 (tgc-mark-tf32; "
                     "PyTorch's torch.backends.cudnn.allow_tf32)"),
      withDefault(false)};
  Option<bool> cudnnConvolutions{
      *this, "cudnn-convolutions",
      llvm::cl::desc("f32 convolutions as cuDNN calls (tgc-to-linalg's "
                     "library-convolutions; PyTorch's "
                     "torch.backends.cudnn.enabled); off: im2col and a GEMM"),
      withDefault(false)};
  Option<bool> exactDivision{
      *this, "exact-division",
      llvm::cl::desc("Keep every f32 division (off: divisions of a kernel "
                     "by one value multiply by its reciprocal)"),
      withDefault(kGpuKernelDefaults.exactDivision)};
  Option<bool> deviceAsserts{
      *this, "device-asserts",
      llvm::cl::desc("Index range checks of gathers inside their kernels, as "
                     "CUDA asserts (tgc-to-linalg's index-checks-in-kernels; "
                     "the runtime's device asserts, reduce-overhead mode)"),
      withDefault(false)};
  Option<bool> hoistChecks{
      *this, "hoist-checks",
      llvm::cl::desc("Checks of the inputs first (tgc-hoist-checks): a call "
                     "waits for its device-side checks before its other "
                     "kernels, not after them"),
      withDefault(true)};
  Option<bool> dedupKernels{
      *this, "dedup-kernels",
      llvm::cl::desc("One kernel for identical ones (tgc-gpu-dedup-kernels)"),
      withDefault(true)};
  Option<bool> lowerKernels{
      *this, "lower-kernels",
      llvm::cl::desc("Lower the kernels to NVVM (off: stop at the gpu "
                     "dialect, for inspection)"),
      withDefault(true)};
};

/// tgc to kernels in gpu.modules (NVVM) plus a host function of buffers,
/// launches and GEMMs that the launch plan is read from.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// The kernels of gpu.modules (gpu, scf, affine, arith, math, memref) to
/// the NVVM and LLVM dialects.
void buildGpuKernelsToNVVMPipeline(OpPassManager &pm);

void registerGpuPipeline();

} // namespace mlir::tgc

#endif // TGC_PIPELINES_PIPELINES_H
