//===- Passes.td - TGC conversions ------------------------------*- tablegen -*-===//

#ifndef TGC_CONVERSION_PASSES_TD
#define TGC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcLowerGuards : Pass<"tgc-lower-guards", "ModuleOp"> {
  let summary = "Lower guard sets to native guard functions (LLVM dialect)";
  let description = [{
    Each `tgc_guard.guard_set for @f` becomes

    ```c
    int32_t tgc_guard_f(const tgc_arg_desc *args, int32_t num_args);
    ```

    (LLVM dialect, C ABI; `tgc_arg_desc` is defined in
    `include/tgc/Runtime/tgc_runtime.h`), returning -1 when every guard
    passes and otherwise the index of the first guard that fails, in the
    guard set's order. Sizes are read lazily and only after checking that
    the argument exists and has enough dimensions, so a guard function never
    reads out of bounds, whatever the descriptors. Next to it, the pass
    emits `tgc_guard_info_f`, a `tgc_guard_set_info` with each guard's
    text, reason and the sizes to print when it fails, which the runtime
    uses for recompile messages. The guard set is erased.

    A set with at least `table-min-guards` rank, dtype, device, contiguity
    and argument-size range guards (a model's parameters bring five each)
    checks those from a constant table (`tgc_guard_f.table`: per guard its
    index, kind, argument, dim and bounds) with one loop,
    `tgc_guard_.check_table`, called for each run of them between the
    guards that need code; the result is the same first failing guard, in
    code that does not grow with the guards (24 GPT-style blocks: 1543
    guards, which as code were 22k lines of LLVM IR).
  }];
  let options = [
    Option<"tableMinGuards", "table-min-guards", "int64_t", "64",
           "Guards that a table can check, at or above which a set checks "
           "them from a table (0: always)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TgcToLinalg : Pass<"tgc-to-linalg", "ModuleOp"> {
  let summary = "Lower tgc ops to linalg on tensors";
  let description = [{
    Every tgc op becomes linalg (named ops or `linalg.generic`), tensor,
    arith and math ops on tensors; topk and cholesky use scf loops.
    `tgc.write_out` becomes a `bufferization.materialize_in_destination`
    into the out buffer argument, so that bufferization writes the caller's
    buffer in place. The symbolic shape annotations of function bodies
    (tgc_sym binds, constraints, symbols) are removed first; guard sets are
    left for tgc-lower-guards. Conventions (dynamic sizes, broadcasting,
    f16/bf16 computed in f32, data-dependent checks) are listed in
    `include/tgc/Conversion/TgcToLinalg/TgcToLinalg.h`.

    `tgc.linear` over an input whose last leading dim (the rows of a
    register tile) is static and below 16 (attention's projections over a
    sequence-first [T, B, C]) runs over its leading dims collapsed into one
    (at most one of them `?`), the result expanded back: the product's rows
    are T B, not B.

    With `softmax-exp-once` (the CPU pipeline), a softmax's `exp(x - max)`
    is an elementwise op of its own that both the sum and the normalization
    read: the CPU's row kernels compute it once per element into a row
    temporary, instead of once for the sum and again for the result (a
    softmax-bound kernel spent two thirds of its time in `expf`). The GPU
    pipeline recomputes it in registers, which costs less than a round trip
    through memory.

    With `im2col-pads` (the GPU pipeline), an ungrouped convolution with
    padding whose input has static, non-zero spatial sizes gathers its
    im2col patches from the input itself, reading a clamped position and
    selecting zero outside it, instead of from a padded copy: the copy
    cost a fill and a copy kernel per convolution (on ResNet-18 about a
    sixth of what its im2col gathers cost). A padded max pool over static,
    non-zero spatial sizes reads its input the same way, with the lowest
    value outside it. The CPU keeps the padded copies, whose windows read
    through an affine window map vectorize better.

    With `library-convolutions` (the GPU pipeline when cuDNN runs
    convolutions, as PyTorch's `torch.backends.cudnn.enabled`), an f32
    convolution cuDNN can run (static weight sizes) is one generic that
    states the direct convolution, marked `#tgc_gpu.conv` with its window
    parameters: the launch plan runs it as a `cudnnConvolutionForward`,
    which never materializes im2col patches.

    With `direct-convolutions` (the CPU pipeline), an ungrouped f32 or f64
    convolution of stride 1 along the width whose images have at least 256
    outputs (or a `?` size) is one contraction over loops (n, o, oh, ow,
    c, kh, kw) that reads the padded input at (n, c, oh * s + kh * d, ow +
    kw * d'), marked `tgc.direct_conv`: tgc-form-kernels gives each
    iteration a register tile of output channels and
    tgc-vectorize-contractions keeps the tile's sums in registers over c,
    kh and kw. The input is read in place of kH x kW times its size in
    im2col patches (docs/cpu-pipeline.md).

    With `index-checks-in-kernels` (the GPU pipeline's `device-asserts`:
    reduce-overhead mode), a gather, index_select or embedding checks each
    index it reads inside its own generic, `cf.assert` with the op's
    location in the message, which the GPU kernel lowers to CUDA's
    `__assertfail`, as eager PyTorch's CUDA gathers assert: no reduction
    over the indices, no check step in the launch plan. The index is still
    clamped after the assert.
  }];
  let options = [
    Option<"softmaxExpOnce", "softmax-exp-once", "bool", "false",
           "A softmax's exp(x - max) as an op of its own, read by its sum "
           "and its normalization">,
    Option<"im2colPads", "im2col-pads", "bool", "false",
           "An im2col convolution's patches read its input with bounds "
           "checks instead of a padded copy (static spatial sizes)">,
    Option<"im2colBatchColumns", "im2col-batch-columns", "bool", "false",
           "An im2col product whose images have fewer than 256 outputs "
           "takes the batch into its columns (one wider product, then a "
           "transpose)">,
    Option<"directConvolutions", "direct-convolutions", "bool", "false",
           "Ungrouped f32/f64 convolutions of stride 1 along the width whose "
           "images have at least 256 outputs as one window contraction "
           "over the padded input (no im2col patches)">,
    Option<"libraryConvolutions", "library-convolutions", "bool", "false",
           "f32 convolutions as one generic marked #tgc_gpu.conv, which "
           "the GPU's launch plan runs with cuDNN">,
    Option<"indexChecksInKernels", "index-checks-in-kernels", "bool",
           "false",
           "A gather's, index_select's or embedding's index range check "
           "as a cf.assert in its generic's body (the GPU's device "
           "asserts), not a reduction and a top-level cf.assert">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::tgc::tgc_gpu::TgcGpuDialect"];
}

#endif // TGC_CONVERSION_PASSES_TD
