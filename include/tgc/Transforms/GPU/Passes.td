//===- Passes.td - GPU passes ----------------------------------------*- tablegen -*-===//
//
// GPU code generation: kernel strategies, kernels and GEMMs.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_GPU_PASSES_TD
#define TGC_TRANSFORMS_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcGpuSelectStrategy : Pass<"tgc-gpu-select-strategy", "ModuleOp"> {
  let summary = "Choose how each fusion group runs on the GPU: cuBLASLt GEMMs "
                "and one kernel strategy per segment";
  let description = [{
    Runs on bufferized functions (memrefs; intermediates planned into an
    arena by tgc-plan-memory) whose linalg ops carry the `tgc.group` of
    their fusion group, and records its decisions as `tgc_gpu` attributes
    for tgc-gpu-form-kernels (which builds them) and the launch plan:

    - a contraction of f32, f16 or bf16 matrices in row-major buffers
      (matmul, bmm, linear) gets `tgc_gpu.gemm = #tgc_gpu.gemm<...>` (its
      loops in each role, transposes, epilogue) and stays on the host for
      the launch plan to call cuBLASLt; the zero fill of its output is
      dropped (the GEMM overwrites it);
    - with `gemm-epilogues`, the elementwise op right after such a GEMM, in
      its fusion group, that computes `act(C + bias)` rounded once to its
      output type (`act` none, ReLU or tanh GELU; the bias a vector over
      the GEMM's columns of the output type), and is the only reader of C,
      becomes the GEMM's cuBLASLt epilogue (`epilogue = bias_relu`, ...):
      the GEMM writes that op's output, and the op, marked
      `tgc_gpu.gemm_epilogue_of`, stays on the host for the launch plan to
      read its buffers. Exact (erf) GELU is never an epilogue: cuBLASLt's
      GELU is the tanh approximation.

    Every other generic, cut into segments (runs of consecutive generics
    of one group, cut at GEMMs and host loop nests), gets
    `tgc_gpu.strategy = #tgc_gpu.strategy<kind, kernel = N, threads = T>`,
    the ops of one kernel sharing N:

    - `row`: a segment of row stages (generics over the same leading
      parallel loops, each either without the row loop, parallel over it,
      or reducing it with one combiner such as `addf` or `maximumf`:
      softmax, layer norm, `sum`/`amax` over the last dim, entropy chains),
      threads `row-block-size`; not for a 1-D segment whose length is
      dynamic or over the target's single-block limit;
    - `tree`: any other reduction with one output and a combiner that has a
      neutral element (column and full reductions, long or dynamic 1-D
      ones), with the fill of its output before it and the elementwise ops
      after it that read its result at its own points;
    - `flat` (`vector` = 16 bytes of elements): an elementwise op over
      contiguous buffers of one element width;
    - `element`: any other generic (broadcasts, argmax, convolutions,
      pooling).

    A sequential host loop nest (topk, cholesky) gets `loop`. Before
    choosing, a result that is not a buffer of its own (a constant, an
    argument, a buffer returned twice) becomes a copy in a new allocation,
    generics read strided views directly, and `memref.copy` becomes a copy
    generic.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block">,
    Option<"rowBlockSize", "row-block-size", "int64_t", "128",
           "Threads per block of row kernels (measured on an H100: 128 "
           "beats 256 for rows of 1024; 512 and 1024 are much slower)">,
    Option<"longRowBlockSize", "long-row-block-size", "int64_t", "1024",
           "Threads per block of row kernels over static rows of at least "
           "16384 elements (a language model's vocabulary; 0: "
           "row-block-size). Fewer rows in flight keep each row in L2 "
           "between its passes (H200, 4096 rows of 50257: 0.92 against "
           "1.50 ms at 128)">,
    Option<"rowRegisters", "row-registers", "bool", "true",
           "Row kernels over rows of one static length keep each thread's "
           "elements of read-only buffers in registers across stages">,
    Option<"vectorize", "vectorize", "bool", "true",
           "16-byte vector accesses in elementwise kernels over contiguous "
           "buffers and in row kernels over static rows that the row's "
           "threads divide into such chunks (argument buffers then carry "
           "alignment guards)">,
    Option<"gemmEpilogues", "gemm-epilogues", "bool", "true",
           "Run a GEMM's elementwise consumer (bias, ReLU, tanh GELU, the "
           "rounding to a 16-bit output) as its cuBLASLt epilogue">,
  ];
  let dependentDialects = ["::mlir::tgc::tgc_gpu::TgcGpuDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TgcGpuFoldGemmTransposes
    : Pass<"tgc-gpu-fold-gemm-transposes", "func::FuncOp"> {
  let summary = "Read a GEMM's transposed operand in place of its copy";
  let description = [{
    Runs on linalg on tensors, after generalization and canonicalization
    (no identity copy is left to hide a slice) and before bufferization
    (the GPU pipeline). A contraction reads an operand
    through a transpose: `x.t() @ y`, and in backward graphs every weight
    gradient (`dY^T X`), attention's `P^T dO` and `dS^T Q`, the vocabulary
    projection's gradient. The transpose is a copy kernel, and a transposed
    copy reads with a stride: GPT-2 small's training step spent about 6 ms
    of its 100 in such copies at a quarter of the memory's bandwidth.
    cuBLASLt reads a transposed operand at full speed, so the contraction
    reads the transpose's input through the composed indexing map instead:

    ```mlir
    %t = linalg.generic {indexing_maps = [(i, j) -> (j, i), (i, j) -> (i, j)],
                         iterator_types = ["parallel", "parallel"]}
           ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) { yield %in }
    %c = linalg.generic {indexing_maps = [(m, n, k) -> (m, k), (m, n, k) -> (k, n),
                                          (m, n, k) -> (m, n)], ...}
           ins(%t, %y : tensor<32x64xf32>, tensor<64x16xf32>) ...
    // becomes, the transpose erased:
    %c = linalg.generic {indexing_maps = [(m, n, k) -> (k, m), (m, n, k) -> (k, n),
                                          (m, n, k) -> (m, n)], ...}
           ins(%x, %y : tensor<64x32xf32>, tensor<64x16xf32>) ...
    ```

    Folded only when:
    - the producer is a pure permutation: one input, one init, only
      parallel loops, a body that yields its input, permutation maps;
    - the contraction is still one cuBLASLt runs with the new map
      (`matchGemmMaps`: A transposed only with one M dim, the batch dims
      leading) and its element types are cuBLASLt's (equal f32, f16 or
      bf16 inputs; an output of the same type or f32): another product's
      kernel would read the transposed operand with a stride;
    - the transpose's input is a whole tensor (a function argument, a
      linalg result, a new tensor such as the entry copy of an argument
      the function also writes, a reshape of one), which bufferizes to a
      dense buffer
      the GEMM takes as a pointer; a slice may be strided, and a
      contraction over it would not be a GEMM.

    A transpose under a collapse that merges only dims the transpose keeps
    together and in order (`k.transpose(-1, -2).reshape(B * H, D, T)` in
    attention's backward, batch and heads merged) is a transpose of the
    same collapse of its input: the GEMM reads that collapse (a new
    `tensor.collapse_shape`, taking the old one's place; only when the old
    one has no other reader) through the permutation of its groups. Heads
    split from the sequence (`view(B, T, H, D).transpose(1, 2)`) merge dims
    that are not neighbours in the input: their copy stays.

    A transpose with other readers stays for them; one read by several
    GEMMs (or as both operands of one) folds into each and goes.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TgcGpuFormKernels : Pass<"tgc-gpu-form-kernels", "ModuleOp"> {
  let summary = "Build the GPU kernels tgc-gpu-select-strategy chose";
  let description = [{
    Runs after tgc-gpu-select-strategy. The generics of each
    `tgc_gpu.strategy` kernel number become `gpu.func` kernels in a
    `gpu.module` named after the function, launched with
    `gpu.launch_func`, whose grid and operand sizes are index values
    computed from the buffers' sizes, so one kernel serves every size:

    - `row`: one block per row (a warp per row for static rows up to 256):
      threads stride over the row, reductions combine across the warp with
      `gpu.shuffle` and across warps in workgroup memory, stages are
      separated by `gpu.barrier`; with `registers`, static rows keep each
      thread's elements and the per-row totals in registers (fewer
      barriers), read and written with 16-byte vectors (with `vectors`)
      when the row's threads divide the row into such chunks;
    - `tree`: workers (a thread per output and chunk for column
      reductions, else a warp per output and chunk reading 16-byte
      vectors) write partials to a scratch region that grows the arena,
      and blocks of 1024 threads combine them; when every output has one
      chunk the first kernel finishes the outputs and the second has a
      grid of 0; the output's fill and the elementwise ops that read the
      result at its own points run in the final stage;
    - `flat`: a grid-stride loop over 16-byte vector chunks, then the
      remainder; the launch carries `tgc_gpu.vector_align` for the launch
      plan's alignment guards;
    - `element`: a grid-stride loop with one thread per element of its
      parallel loops and its reduction loops in the thread;
    - `loop`: the nest's outer `tgc.parallel` loops as threads, the rest
      as it ran on the host (one thread without such loops).

    GEMMs (`tgc_gpu.gemm`) and their epilogue ops stay on the host.
    Constants other than scalars that
    kernels read are copied into the kernel module as public globals (at
    least 16-byte aligned); the host keeps their `memref.get_global`,
    which the launch plan resolves to the module's global. A reshape's
    host shape buffer (stores and loads of sizes at constant positions)
    and the host read of an i1 flag that only `cf.assert`s use (a
    gather's indices in range) stay on the host: the launch plan reads
    the sizes, and turns the flag into a device-side check after the
    kernels that write the flag. `math.ipowi`
    becomes a squaring loop in the kernel; unless `exact-division`, the
    f32 divisions of a block by one value become a reciprocal and
    products. Ops the GPU path cannot run yet (other host reads of device
    memory, host control flow) are errors at their location, as is a
    generic without a strategy.
  }];
  let options = [
    Option<"maxBlocks", "max-blocks", "int64_t", "16896",
           "Most blocks of a grid-stride kernel (132 SMs x 128; measured on "
           "an H100: 4096x4096 f32 pointwise 71.5 us with 4224, 70.3 with "
           "16384)">,
    Option<"exactDivision", "exact-division", "bool", "false",
           "Keep every f32 division; off, the divisions of a block by one "
           "value (softmax's by the row sum) multiply by its reciprocal, "
           "within 1.5 ulp of the quotient">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::tgc::tgc_gpu::TgcGpuDialect"];
}

def TgcGpuDedupKernels : Pass<"tgc-gpu-dedup-kernels", "ModuleOp"> {
  let summary = "Keep one of each set of identical GPU kernels";
  let description = [{
    A transformer's layers run the same kernels on other buffers: after
    tgc-gpu-form-kernels, the `gpu.func` kernels of a `gpu.module` that
    are identical but for their names and locations (same signature,
    attributes and body) become one, and every `gpu.launch_func` of a
    removed kernel launches the kept one. The kept kernel's ops take the
    locations of every copy (fused), so the report still maps the kernel
    to each layer's model lines. Only the kernel's code is shared: every
    launch keeps its own operands, grid and attributes. The NVVM
    lowering, LLVM's back end and ptxas then see each kernel once, which
    makes a 24-layer model's GPU code about as fast to compile as a
    2-layer one's.

    ```mlir
    gpu.module @f_kernels {
      gpu.func @f_elementwise_0(%a: memref<?xf32>) kernel { ... }
      gpu.func @f_elementwise_3(%a: memref<?xf32>) kernel { ... }  // same
    }
    gpu.launch_func @f_kernels::@f_elementwise_3 ... args(%b : ...)
    // becomes a launch of @f_kernels::@f_elementwise_0, @f_elementwise_3
    // is erased.
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // TGC_TRANSFORMS_GPU_PASSES_TD
