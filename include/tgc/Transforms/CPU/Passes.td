//===- Passes.td - CPU passes ----------------------------------------*- tablegen -*-===//
//
// CPU code generation: parallel loops, math, allocations and data checks.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_CPU_PASSES_TD
#define TGC_TRANSFORMS_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcFormKernels : Pass<"tgc-form-kernels", "func::FuncOp"> {
  let summary = "One parallel loop nest per fusion group";
  let description = [{
    Runs on linalg on tensors, where each op carries the `tgc.group` of the
    fusion group it came from (tgc-to-linalg). For each group, every root
    (an op whose result leaves the group) is tiled along its outer parallel
    dimensions into an `scf.forall`, and the group's producers are fused
    into the loop, so that the group computes in one pass over its rows or
    elements and its intermediate values stay per-iteration. Tile sizes:
    1 on every parallel dimension but the innermost (which stays whole, for
    vectorization); a 1-D elementwise root is tiled in chunks of
    `chunk-size`. The root of a matrix product (a `matmul` group, a
    contraction root, or an elementwise root over a contraction of its
    group, as a linear layer's bias) takes `contraction-rows` rows per
    iteration instead
    of 1 on its second-innermost parallel dimension, so that
    `tgc-vectorize-contractions` can keep a tile of rows in registers;
    fewer where a static extent would otherwise leave one thread idle. A
    large product (static, at least 128 rows and 512 columns) takes 2-D
    blocks of 64 rows x 256 columns instead (128 columns for 8-byte
    elements, so that a block's temporary stays within the 64 KiB that go
    on the stack), so that an iteration reads a block of the right-hand
    matrix rather than all of it. A direct convolution (`tgc.direct_conv`,
    tgc-to-linalg's `direct-convolutions`) or the epilogue of its group
    over its [N, O, H', W'] takes one image, one output row and
    `contraction-rows` output channels per iteration, a register tile's
    rows for `tgc-vectorize-contractions`.
    Reduction dimensions are never tiled. Producers of other groups are
    never fused (that would recompute them per iteration). Tile-and-fuse
    clones a producer once per path from the root down to it: an op that
    would be cloned more than 64 times (a chain whose every value feeds
    the next step twice, as a max pool with indices walks its window) is
    marked `tgc.own_kernel` instead, computed once into a temporary. An op is a root
    when its result leaves its group or reaches a group op through one
    tile-and-fuse cannot fuse across (a reshape). A `tensor.pad` becomes an
    elementwise generic over the padded shape that reads the source at the
    clamped position and selects the pad value outside (inside an `scf.if`
    where a padded dim of the source may be 0), marked `tgc.own_kernel`:
    always a root, never fused into a consumer's loop (fused, each tile
    copied a dynamically shaped window through the runtime's generic
    `memrefCopy`). Per-iteration temporaries of a dynamic tile size
    (`min(8, n - i)` rows) become slices of a `bufferization.alloc_tensor`
    of the bound size when it is at most 64 KiB, so that they live on the
    stack instead of the heap; not the destinations of the loop's results,
    which bufferize into the loop's output in place.

    A group of static shapes identical to an earlier one (a model's
    repeated layers: the same ops, attributes, types and uses, reading
    other values in the same pattern) gets a clone of that group's
    kernel, its values, group and locations replaced by its own, instead
    of being tiled again
    (`reuse-identical-groups`; the result is the same IR, locations
    included; `remark-reused` counts them in a remark).

    Then, with `fuse-elementwise`, elementwise producers merge into their
    consumers (upstream's elementwise fusion) where nothing is recomputed:
    the consumer reads the producer through a permutation of the same
    loops. (Fusing softmax's normalization into an attention's P x V
    contraction would recompute it for every output column.)
  }];
  let options = [
    Option<"chunkSize", "chunk-size", "int64_t", "4096",
           "Tile size of 1-D elementwise roots">,
    Option<"fuseElementwise", "fuse-elementwise", "bool", "true",
           "Merge elementwise producers into consumers without recompute">,
    Option<"contractionRows", "contraction-rows", "int64_t", "8",
           "Rows per iteration of a matrix product's kernel">,
    Option<"reuseIdenticalGroups", "reuse-identical-groups", "bool", "true",
           "Form a group's kernel by cloning an identical earlier group's">,
    Option<"remarkReused", "remark-reused", "bool", "false",
           "A remark on the function: how many kernels were clones">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def TgcApproximateMath : Pass<"tgc-approximate-math"> {
  let summary = "Vectorizable polynomial approximations of f32 math functions";
  let description = [{
    Rewrites f32 `math.exp`, `math.log`, `math.log2`, `math.tanh` and
    `math.erf` into upstream MLIR's polynomial approximations (range
    reduction plus a minimax polynomial, arith ops only), so that LLVM
    vectorizes loops that call them instead of calling libm once per
    element. The approximations are accurate to a few ulp over the whole
    f32 range (the same approach IREE takes); `log1p`, `expm1` and f64 stay
    with libm, which is more accurate near 0. `ops` restricts the rewrite to
    the listed mnemonics.
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "Math ops to approximate (default: exp, log, log2, tanh, erf)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::math::MathDialect"];
}

def TgcReassociateReductions
    : Pass<"tgc-reassociate-reductions", "func::FuncOp"> {
  let summary = "Allow reordering of floating-point reductions";
  let description = [{
    Marks the combiner of every float reduction in a `linalg.generic` (an
    `arith.addf`, `arith.mulf`, `arith.maximumf`/`minimumf` or
    `arith.maxnumf`/`minnumf` that folds a value into the reduction's
    accumulator, the block argument of its init) with the `reassoc` and
    `contract` fast-math flags. Without them LLVM must add the terms of a
    sum in order, one at a time, and cannot vectorize the loop; with them it
    keeps several partial sums in vector registers, as PyTorch's vectorized
    reductions do. Only the rounding of the result changes (sums of n terms
    stay within n ulp-scaled bounds); NaN and infinity propagation is kept
    (no `nnan`/`ninf`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TgcReciprocalDivisions
    : Pass<"tgc-reciprocal-divisions", "func::FuncOp"> {
  let summary = "A softmax's row times one reciprocal of its sum";
  let description = [{
    A softmax's division of each element by its row's sum, which
    `tgc-to-linalg` marks with `tgc.softmax_sum_division`, becomes a
    product with `1 / sum`, when the sum is an input of the
    `linalg.generic` that is the same for every iteration of the innermost
    loop (its indexing map does not read that loop's index). LLVM then
    computes the reciprocal once per row, as PyTorch's CPU softmax does
    (`1 / sum`, then products) and as the GPU pipeline does unless
    `exact-division`. The sum of `exp(x - max)` is at least 1, so its
    reciprocal is a normal number and the product is within 1.5 ulp of
    the quotient. Other divisions stay IEEE divisions: a reciprocal of an
    arbitrary divisor can overflow (below 2^-126) or lose bits, and eager
    PyTorch divides there. Written as a product, not with the `arcp` flag,
    which would let LLVM estimate `1 / sqrt(y)`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TgcMathToIntrinsics : Pass<"tgc-math-to-intrinsics"> {
  let summary = "Lower math ops with an exact LLVM intrinsic to it";
  let description = [{
    `math.fma`, `floor`, `ceil`, `trunc`, `round`, `roundeven`, `absf`,
    `copysign`, `sqrt`, `exp`, `exp2`, `log`, `log2`, `log10`, `sin`, `cos`
    and `powf` become the matching `llvm.intr.*` operations (and `rsqrt`
    becomes `1 / llvm.intr.sqrt`: glibc has no `rsqrtf`), which LLVM
    turns into single instructions where the CPU has them (fma, rounding,
    sqrt, abs) and vectorizes; only then does `convert-math-to-libm` turn
    the remaining math ops (`expm1`, `log1p`, `tanh`, `erf`, `atan2`, ...)
    into libm calls. Without this pass libm would be called for every
    `floor` and `fma`, which keeps loops scalar. The intrinsics round
    exactly as the math ops are specified (the transcendental ones become
    the same libm calls in the end).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TgcOrderLoops : Pass<"tgc-order-loops", "func::FuncOp"> {
  let summary = "Innermost loop of a contraction: the one operands walk "
                "contiguously";
  let description = [{
    A `linalg.generic` with reduction loops keeps its loops in the order of
    its iteration space when it becomes a loop nest
    (`convert-linalg-to-loops`): a matmul's `(i, j, k)` runs `k` innermost,
    reading `B[k][j]` with a stride of a whole row and leaving LLVM a float
    reduction it cannot vectorize without reassociation. This pass moves
    one loop innermost, chosen among the loops that every operand depending
    on them walks contiguously (the loop is the operand's last index, alone
    or plus other loops): the one most operands walk, a parallel loop on a
    tie. A matmul becomes `(i, k, j)`, whose inner loop is a vectorizable
    `C[i][j] += A[i][k] * B[k][j]` over rows of B and C; a convolution
    runs its output width innermost; `x W^T` (linear) keeps its contiguous
    dot product. Each output element is still summed in the same order, so
    results are bit-identical.

    Generics without reduction loops are left alone (their order is the
    output's), and so is a generic whose innermost loop already is the
    best choice.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TgcVectorizeContractions
    : Pass<"tgc-vectorize-contractions", "func::FuncOp"> {
  let summary = "Matrix products as register-tiled vector loops";
  let description = [{
    Runs on linalg over memrefs, before `convert-linalg-to-loops`. A
    `linalg.generic` that is a contraction `C += A * B` in f32 or f64 (one
    reduction loop `k`, projected-permutation maps, a body that is a
    multiply and an add) becomes explicit loops over vectors whose
    accumulators stay in registers for the whole loop over `k`:

    - `B[.., k, j]` and `C[.., i, j]` contiguous along `j` (a matmul, a
      batched matmul, an im2col convolution): tiles of 8 rows of `C` by two
      vectors (4 rows with 16 vector registers); each step of `k` loads two
      vectors of `B`, broadcasts one element of `A` per row, and does 16
      fused multiply-adds. Each element of `C` is still summed in the order
      of `k`; the multiply and the add are fused (one rounding) where the
      add allows `contract` (`tgc-reassociate-reductions` sets it), as
      oneDNN's and MKL's kernels do, so results can differ from the scalar
      loop's in the last bit (LLVM fuses a scalar multiply-add only when the
      multiply allows `contract` too); without `contract`, a multiply and an
      add, bit-identical to the scalar loop.
    - `A[.., i, k]` and `B[.., j, k]` contiguous along `k` (`x W^T`, a
      linear layer; `Q K^T`): tiles of 4 x 4 dot products, each lanes of
      partial sums added up at the end. This reorders each sum, so it is
      done only where the add allows `reassoc`
      (`tgc-reassociate-reductions`; `tgc-run --strict-reductions` keeps the
      scalar loop). In a block of 32 rows or more (below) whose columns
      are a static count of whole tiles, B's panel is instead packed
      transposed (squares of lanes x lanes loaded along `k` and transposed
      by rounds of `vector.shuffle`; the steps of `k` after the last square
      element by element), and the block is tiled along `j` as above, each
      sum in the order of `k` (so also without `reassoc`).

    Rows and columns that do not fill a tile run one at a time; the last
    partial vector along `j` or `k` is masked. Other loops (a batch) stay
    outer loops. Tiles of rows sweep all columns, except in a block of more
    rows than one tile (the 2-D blocks of tgc-form-kernels; the bound of a
    dynamic tile size counts): there column tiles run outside row tiles,
    so that B's panel under a column tile stays in cache for the block's
    rows, and, along `j`, `k` runs in blocks of 256 steps where it is longer
    than 512 (C's tiles stored and reloaded between blocks; each sum keeps
    its order). With 4 row tiles or more, each such panel of B is first
    packed into a contiguous stack buffer, which the row tiles read (B's
    rows, a row apart, fall into few cache sets when the row length is a
    power of two); `k` then runs in blocks of 256 as soon as it is longer,
    so that a panel is at most 256 x 2 vectors (32 KiB of f32 with
    AVX-512). The scalar loop nest that LLVM vectorized before loaded and
    stored `C` on every step of `k`: a 512 x 512 x 512 matmul ran at a
    fifth of this.

    A window contraction, the direct convolution of tgc-to-linalg's
    `direct-convolutions` (`out[n, o, oh, ow] += in[n, c, oh * s + kh,
    ow + kw * d] * w[o, c, kh, kw]`: several reduction loops; one operand,
    B, read at sums of loops, its last index `j` plus reduction loops; the
    other, A, a projected permutation that does not read `j`), gets the
    same tiles along `j`: rows are the output's loop that A reads and B
    does not (the output channel), and the accumulators are carried
    through a loop per reduction dim (c, kh, kw, in order: each sum in the
    order of the im2col product's k), each step loading two vectors of B
    at the window's offset. Its tiles sweep all columns, unblocked.

    `vector-bits`: the width of the vector registers (0: the host's, 512
    with AVX-512, 256 with AVX, else 128).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "0",
           "Vector register width in bits (0: the host's)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TgcParallelizeMarkedLoops
    : Pass<"tgc-parallelize-marked-loops", "func::FuncOp"> {
  let summary = "Sequential lowerings' independent loops as scf.parallel";
  let description = [{
    tgc-to-linalg marks the outer `scf.for` loops of its sequential
    lowerings `tgc.parallel` when their iterations write disjoint elements:
    topk's and max-pool backward's rows, scatter_add's loops before its
    `dim`, cholesky's batch. On the GPU they become threads
    (tgc-gpu-form-kernels); on the CPU this pass, after bufferization,
    turns each outermost such loop without results, with the marked loops
    perfectly nested in it, into one `scf.parallel`, so that they run on
    OpenMP's threads (tgc-serialize-small-loops and tgc-parallel-if still
    keep small ones serial). Loops marked `tgc.parallel_atomic_add` stay
    sequential: the CPU path has no atomic updates.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TgcSerializeSmallLoops : Pass<"tgc-serialize-small-loops", "func::FuncOp"> {
  let summary = "Small kernels run serially, not in an OpenMP parallel region";
  let description = [{
    Each kernel's `scf.parallel` becomes an OpenMP parallel region
    (`convert-scf-to-openmp`), whose fork and join cost about a microsecond
    on two cores and more on many: more than a 64 x 64 element-wise kernel
    takes. Before that conversion, this pass turns an outermost
    `scf.parallel` without reductions into nested `scf.for` loops when its
    work is known and small: the product of its constant trip counts and
    those of the deepest chain of `scf.for` loops nested in its body is
    below `min-work` (element iterations).
    Loops with a dynamic bound (a dynamic size) are left parallel: their
    work is unknown when compiling.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"16384",
           "Work (element iterations) below which a loop runs serially">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TgcKeepOuterLoops : Pass<"tgc-keep-outer-loops", "func::FuncOp"> {
  let summary = "LLVM does not unroll the outer loops of a loop nest";
  let description = [{
    Every `scf.for` whose body holds another loop gets the loop annotation
    `unroll = <disable = true>`, which `convert-scf-to-cf` puts on its back
    edge and the translation makes `llvm.loop.unroll.disable`. The inner
    loops are left to LLVM (vectorized, interleaved, unrolled).

    Why: LLVM's full unrolling copies an outer loop's whole body, inner
    loops included, once per iteration; each copy is then vectorized and
    unrolled again. A linear layer's 8-row accumulator tile, zeroed and
    then added to the bias row by row, became 8 copies of each vectorized
    row loop: the kernel's LLVM work went from 32 to 77 ms (1980 lines of
    optimized IR instead of 494) for no measured speed
    (docs/cpu-pipeline.md, "Outer loops kept"). Loops MLIR tiled for
    registers (`tgc-vectorize-contractions`) are already unrolled where it
    pays.

    A small nest is left to LLVM: one whose loops all have constant trip
    counts and whose full unrolling makes at most `small-nest` copies of
    its innermost bodies (a 3 x 3 window's taps: 9). An `scf.for` that
    already carries a loop annotation keeps it.
  }];
  let options = [
    Option<"smallNest", "small-nest", "int64_t", /*default=*/"64",
           "Nests that full unrolling copies at most this many times are "
           "left to LLVM">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TgcParallelIf : Pass<"tgc-parallel-if", "func::FuncOp"> {
  let summary = "Parallel regions of dynamic size fork only for enough work";
  let description = [{
    The dynamic-size counterpart of `tgc-serialize-small-loops`, after
    `convert-scf-to-openmp`: an `omp.parallel` whose work depends on sizes
    known only at run time gets an `if` clause, so that it runs on the
    calling thread when the call's work is small:

    ```mlir
    %w = ...trip counts multiplied...
    %big = arith.cmpi sge, %w, %min_work : index
    omp.parallel if(%big) { omp.wsloop { omp.loop_nest ... } }
    ```

    The work is the product of the trip counts of the worksharing loop nest
    and of the deepest chain of `scf.for` loops in its body, computed before
    the region (a region whose bounds are computed inside it, or with a
    data-dependent loop, is left as it is). Regions whose bounds are all
    constants are `tgc-serialize-small-loops`' (those left are large).
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"16384",
           "Work (element iterations) below which a region runs serially">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TgcLowerStridedCopies : Pass<"tgc-lower-strided-copies", "func::FuncOp"> {
  let summary = "Copies between non-contiguous memrefs as parallel loops";
  let description = [{
    A `memref.copy` whose source or target is not contiguous (a view with
    strides: a piece of a concatenation written through an `unsqueeze`, a
    crop of a padded buffer) lowers through memref-to-llvm to a call of
    the runtime's generic `memrefCopy`, which walks the elements one at a
    time through the descriptors' sizes and strides, on one thread: for a
    `torch.stack` of 25 MiB it took most of a 100 ms call. This pass
    rewrites such a copy as loads and stores in a loop nest: outside any
    kernel an `scf.parallel` over all dimensions but the innermost (which
    `convert-scf-to-openmp` spreads over the threads, or
    `tgc-serialize-small-loops` keeps serial when small) around an
    `scf.for` over the innermost, which LLVM vectorizes where it is
    contiguous; inside a kernel's loops, plain `scf.for` loops. Copies
    between contiguous memrefs are left alone: they lower to `memcpy`.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TgcHoistAllocas : Pass<"tgc-hoist-allocas", "func::FuncOp"> {
  let summary = "Hoist fixed-size stack buffers out of loops";
  let description = [{
    After promote-buffers-to-stack and convert-scf-to-openmp, the small
    temporaries of a kernel are `memref.alloca`s inside loop bodies, each in
    a `memref.alloca_scope`. A fixed-size alloca is moved to the entry of
    the enclosing `omp.parallel` region (one buffer per thread, freed when
    the region's outlined function returns) or, in a serial kernel, just
    before the kernel (the op of the function's body that holds it),
    between an `llvm.intr.stacksave` before the kernel and an
    `llvm.intr.stackrestore` after it, so that the stack holds one serial
    kernel's buffers at a time (at the function's entry, a chain of 140
    matmuls with 64 KiB panels each overflowed an 8 MiB stack with
    `openmp=false`). The scopes are inlined: the stack no longer grows per
    iteration, and the loop bodies become plain regions that lower to
    control flow. Sound because a freshly allocated buffer has undefined
    contents: bufferized code writes a temporary before reading it in every
    iteration, so reusing one buffer across iterations changes nothing.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TgcReportChecks : Pass<"tgc-report-checks", "ModuleOp"> {
  let summary = "Failed data checks report to the runtime instead of aborting";
  let description = [{
    A `cf.assert` whose condition reads memory (the flag of a gather's
    indices in range, of no integer division by zero, of a positive-definite
    cholesky) checks data, which no guard can check before the call. On the
    CPU such an assert lowered to `abort`, which took the caller's process
    down. This pass makes it

    ```mlir
    scf.if %failed {
      func.call @tgc_report_check_failure(%message) : (!llvm.ptr) -> ()
    }
    ```

    with the message a string constant: the assert's message and location
    ("tgc.gather: index out of range at f.mlir:3:8"). The code goes on:
    every op that a data check guards is defined whatever the data (a
    gather clamps its indices, an integer division by zero divides by
    one, a failed pivot gives NaNs). The runtime's
    `tgc_report_check_failure` keeps the first message of the call on the
    calling thread (the asserts are in the function's body, outside its
    parallel loops), and the caller takes it after the call with
    `tgc_take_check_failure` and fails the call: its results are not
    valid.

    Asserts on sizes alone are left alone: the guards imply them, so they
    only fail when the guards were skipped, where stopping is right.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect"];
}

def TgcCheckAllocations : Pass<"tgc-check-allocations", "ModuleOp"> {
  let summary = "Allocations that fail or overflow end the call with an error";
  let description = [{
    Runs on bufferized CPU code, before its loops are lowered. A
    `memref.alloc` lowers to `malloc` of the product of its sizes: with
    huge sizes the product wrapped around (a small buffer, then writes past
    it: heap corruption), and a failed `malloc` returned null (a crash at
    the first write). For every heap allocation this pass

    * computes the byte count with overflow checks (`arith.mulsi_extended`);
      a negative size operand counts as an overflow (the memory planner
      gives the arena the size -1 when its size overflows). A static type
      whose byte count overflows is an error at compile time;
    * allocates 0 bytes instead when the count overflowed, and tests the
      pointer after the allocation;
    * branches on the test: the rest of the block runs only when the
      allocation succeeded.

    At the function's top level the block is split after the test, and the
    failure block calls the runtime's `tgc_report_alloc_failure(bytes,
    what)` ("cannot allocate 4398046511104 bytes (4.0 TiB) for the arena of
    intermediate values of @f (out of memory)"), frees the buffers
    allocated so far and returns poison results, which the caller does not
    read. The frees are one chain of blocks, a block per buffer, that each
    failure enters at the last buffer allocated before it: each buffer is
    freed in one place (freeing every live buffer on every failure path
    made an entry function quadratic in its buffers, and LLVM's code
    generation with it: a 24-layer transformer's JIT took 100 s).

    Inside a loop (a kernel's per-iteration temporary) the rest of the
    block is wrapped in `scf.if`, and the failure sets a flag of the
    function instead (the loop's other iterations and threads go on); the
    function reports it after its loops with `tgc_report_check_failure`:
    the call fails, its results are freed.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::ub::UBDialect"];
}

#endif // TGC_TRANSFORMS_CPU_PASSES_TD

def TgcMarkResultBuffers : Pass<"tgc-mark-result-buffers", "ModuleOp"> {
  let summary = "Tag the heap buffers a function returns with their result "
                "position";
  let description = [{
    Runs on bufferized CPU code. A function's results are `memref.alloc`s it
    fills and returns; the caller (TGC's runtime, PyTorch through the C API)
    then allocated a tensor of its own and copied each result into it: a
    second pass over every result byte, and for a memory-bound kernel most
    of the call (`-x` on 4096 x 1024 f32 from Python: 2.6-2.8 ms, about
    1 ms of them the copy, against eager's 0.6-1.0; 1.2 ms without it).

    This pass gives each such allocation the attribute `tgc.result_index`
    (the position in `func.return`) so that `tgc-lower-result-buffers`
    asks the caller for the result's memory there, and the kernels write
    it in place. An allocation is tagged when

    * it is a `memref.alloc` in the body of a public function that nothing
      in the module calls (an entry point: the index is the caller's result
      position);
    * `func.return` returns it at that position (the first, when it is
      returned twice), as it is with the same type, or through one
      `memref.expand_shape` or `memref.collapse_shape` (a model's
      `logits.view(B, T, V)`). A reshaped one is replaced by an allocation
      of the returned shape, which its other users see through the inverse
      reshape (the same bytes: identity layouts; at most one dynamic size
      per group of the expanded side);
    * it is not the arena of intermediate values and nothing frees it.

    Everything else stays a `malloc` whose contents the runtime copies out.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::func::FuncDialect"];
}

def TgcLowerArena : Pass<"tgc-lower-arena", "ModuleOp"> {
  let summary = "The arena comes from the runtime's per-thread cache: "
                "tgc_arena_acquire / tgc_arena_release, else malloc / free";
  let description = [{
    Lowers the `memref.alloc` tagged `tgc.arena` by `tgc-plan-memory` (the
    intermediate buffers of a call) and its `memref.dealloc`s to calls of
    the runtime:

    ```c
    void *tgc_arena_acquire(int64_t bytes); // 64-byte aligned; null: none
    void tgc_arena_release(void *arena);
    ```

    The runtime keeps the last released arena of each thread and hands it
    out again when it is large enough, so that repeated calls do not map
    fresh memory from the system and fault in every page of it: glibc
    `mmap`s each allocation over 32 MiB, and a 83 MiB arena (a max-pool
    backward over 8x64x112x112) cost half of its 45 ms call in page
    faults. Both functions are `extern_weak` declarations: without TGC's
    runtime (an object of `tgc-translate`) the arena is `malloc`'d and
    aligned, and freed, as `finalize-memref-to-llvm` would have done.

    Runs after `tgc-check-allocations` (which checks the arena's size and
    pointer) and before the lowering to LLVM.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TgcLowerResultBuffers : Pass<"tgc-lower-result-buffers", "ModuleOp"> {
  let summary = "Result buffers come from the caller: "
                "tgc_result_buffer, else malloc";
  let description = [{
    Lowers each `memref.alloc` tagged `tgc.result_index` by
    `tgc-mark-result-buffers` to a memref descriptor whose memory comes
    from the runtime:

    ```c
    int32_t tgc_result_buffer(int32_t index, int64_t rank,
                              const int64_t *sizes, int64_t bytes,
                              void **buffer);
    ```

    The runtime function is an `extern_weak` declaration (an object or
    shared object of `tgc-translate` loads without TGC's runtime). When it
    is present and returns 1, `*buffer` is the caller's memory for result
    `index` (null when the caller could not allocate it: the null check of
    `tgc-check-allocations`, which runs before, fails the call), and the
    descriptor's allocated pointer is null, so that nothing in the
    function, nor the runtime after it, frees memory the caller owns. When
    it is absent or returns 0 (no call of TGC's runtime in progress, a size
    or dtype the caller did not expect), the buffer is `malloc`'d and
    aligned as `finalize-memref-to-llvm` would have done.

    Runs after `tgc-check-allocations` and before the lowering to LLVM;
    the rest of the function sees a memref (an
    `unrealized_conversion_cast` of the descriptor).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TgcOutlineIdenticalKernels
    : Pass<"tgc-outline-identical-kernels", "ModuleOp"> {
  let summary = "Identical kernels of a function become one function, "
                "called by each";
  let description = [{
    A model's repeated layers give a function identical kernels: the same
    loop nest or parallel region over buffers of the same types, reading
    different weights and activations. Each copy was lowered to LLVM and
    optimized and compiled by LLVM's -O3 on its own: a 6-block Linear /
    LayerNorm / GELU stack spent six times a block's compile time.

    This pass finds the top-level kernels of each function (`scf.for`,
    `scf.forall`, `scf.parallel`, `omp.parallel`, without results) that
    are the same but for the values they capture (`OperationEquivalence`,
    locations ignored; kernel formation's `tgc.group` / `tgc.group_kind`
    annotations, which number the fusion groups and differ between layers,
    are dropped first), outlines one of each such set into a private function
    `@<function>__kernel<N>` (internal linkage in LLVM: `llvm.linkage`,
    kept by func-to-llvm; never exported, no ExecutionEngine wrapper)
    whose arguments are the captured values in
    the order of their first use, and replaces every member of the set by
    a call with its own values, located at the fused locations of the
    kernel it replaces (so that each layer keeps its source lines in
    kernel maps). Constants are not arguments: they are
    cloned into the function, and two kernels are the same only when their
    constants are equal (so loop bounds stay static for LLVM). A kernel
    without a twin stays where it is, unless `every-kernel` is set.

    The CPU pipeline runs it twice. First on the kernels' `scf.forall`s
    right after bufferization, twins only: the loop passes and the
    lowering to LLVM then see each set of twins once (a 24-layer
    encoder's `convert-linalg-to-loops` and the canonicalization after
    it had been a quarter of its MLIR time). Then with `every-kernel`
    before the lowering to LLVM, for the rest. Functions it outlined are
    marked `tgc.kernel_function`: a later run leaves them whole (the
    function is the kernel) and drops the C interface requested for every
    function in between.

    With `every-kernel` (the CPU pipeline sets it) every kernel becomes a
    function: the entry function is left with the glue between kernels
    (allocations, views, calls), which the CPU JIT compiles with generic
    instruction-scheduling tuning (`tune-cpu`): LLVM's scheduler for the
    host's model spent most of a 24-layer transformer's code generation on
    the glue of its entry function, while the kernels keep the host's
    tuning.
  }];
  let options = [
    Option<"everyKernel", "every-kernel", "bool", /*default=*/"false",
           "Outline kernels without a twin too (each its own function)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}
