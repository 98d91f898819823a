//===- Passes.td - TGC frontend passes --------------------------*- tablegen -*-===//
//
// The frontend: symbolic shapes and guards (tgc, tgc_sym, tgc_guard).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_PASSES_TD
#define TGC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcSymbolizeShapes : Pass<"tgc-symbolize-shapes", "func::FuncOp"> {
  let summary = "Give every input size a symbol or a specialization";
  let description = [{
    Decides, for every dimension of every tensor argument, whether the
    compiled code is specialized to its example size (`static`) or works for
    a range of sizes (`dynamic`), and records the decision as IR:

    ```mlir
    %s0 = tgc_sym.symbol "s0" range [2, inf] hint 7 from arg 0 dim 0
    tgc_sym.bind %arg0 [%s0, 64] : tensor<?x64xf32>
    ```

    Policy, per function (`default-policy`) and overridable per argument
    dimension with argument attributes:

    * `static`: specialize to the example size; a guard checks equality.
    * `dynamic`: a symbol with range `[2, inf]` (PyTorch's 0/1
      specialization, `specialize-zero-one`) or `[0, inf]`.
    * `auto`: static first; dimensions listed in the argument attribute
      `tgc.changed_dims` (set by the runtime when a recompile was caused by
      a size change) are dynamic, as `torch.compile(dynamic=None)` does.

    Argument attributes: `tgc.dynamic_dims` and `tgc.static_dims` (arrays of
    dims) override the policy; `tgc.example_shape` gives the example sizes
    (the `example-shapes` option too: `0=7x64,2=10`). Dimensions static in
    the type are always static. A dynamic dimension whose example is 0 or 1
    is specialized when `specialize-zero-one` is set, with that reason.
    With `duck-sizing`, dynamic dimensions with the same example size share
    one symbol (and a guard checks their equality), as PyTorch does.
  }];
  let options = [
    Option<"defaultPolicy", "default-policy", "std::string", "\"dynamic\"",
           "static | dynamic | auto">,
    Option<"specializeZeroOne", "specialize-zero-one", "bool", "true",
           "Specialize sizes 0 and 1; dynamic sizes range over [2, inf]">,
    Option<"duckSizing", "duck-sizing", "bool", "true",
           "Dynamic sizes with equal examples share a symbol">,
    ListOption<"exampleShapes", "example-shapes", "std::string",
               "Example sizes per argument: ARG=D0xD1x...">,
  ];
  let dependentDialects = ["::mlir::tgc::sym::TgcSymDialect"];
}

def TgcInferShapes : Pass<"tgc-infer-shapes", "func::FuncOp"> {
  let summary = "Propagate symbolic shapes and collect constraints";
  let description = [{
    Runs every op's symbolic shape function in order, starting from the
    argument binds of tgc-symbolize-shapes, and makes the result visible:
    a `tgc_sym.bind` after each tensor-producing op and a `tgc_sym.constrain`
    (at the op's location, with a reason) for each requirement that the
    symbol ranges do not already imply. An equality between sizes becomes a
    substitution, so later shapes use one symbol. A requirement that no
    input can meet is an error. Re-running the pass recomputes everything.
  }];
  let dependentDialects = ["::mlir::tgc::sym::TgcSymDialect"];
}

def TgcSpecializeTypes : Pass<"tgc-specialize-types", "func::FuncOp"> {
  let summary = "Sizes the frontend specialized become static in the types";
  let description = [{
    After `tgc-symbolize-shapes` and `tgc-infer-shapes`, an argument size
    that is `?` in the signature may be specialized to a number (0/1
    specialization, the `static` or `auto` policy); its guard checks it at
    run time. This pass writes the number into the argument's type, and
    each op's result type is refined by its type rule (inference,
    same-operands-and-result, convert, layer/rms norm, a reshape's one `?`
    without size operands) in program order. A result whose bind proves a
    `?` size a number for every allowed input (a slice of the first 2 rows
    with step 2 has 1 row) gets a `tensor.cast` to that static type after
    its op.

    The lowering reads types: a `?` that is 1 at run time was indexed like
    any other size, so broadcasting it against 0 or against a larger size
    gave a wrong shape and out-of-bounds reads (the crash fuzzer found
    `maximum` of a 1x1 and a 1x0 tensor, both typed `1x?`, returning 1x1).
    A user that has no type rule here (a reshape with size operands, a
    return, a region's terminator) reads a `tensor.cast` back to the old
    type. The function's argument types change; its result types do not.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def TgcGenerateGuards : Pass<"tgc-generate-guards", "ModuleOp"> {
  let summary = "Build the guard set of each function";
  let description = [{
    For each function with symbolic shapes, a `tgc_guard.guard_set` with:
    dtype, rank, device and contiguity of every tensor argument; each input
    size checked against its bind (specialized sizes by equality, symbols
    by their range, duck-sized dims by equality with their symbol); one
    guard per collected constraint, with the reason and location of the op
    that required it; and no-alias guards between out buffers
    (`tgc.write_out` targets) and every other tensor argument.
  }];
  let options = [
    Option<"device", "device", "std::string", "\"cpu\"",
           "Device the code is compiled for (cpu, cuda, cuda:N)">,
    Option<"assumeContiguous", "assume-contiguous", "bool", "true",
           "The compiled code assumes contiguous row-major tensors">,
  ];
  let dependentDialects = ["::mlir::tgc::guard::TgcGuardDialect",
                           "::mlir::tgc::sym::TgcSymDialect"];
}

def TgcSimplifyGuards : Pass<"tgc-simplify-guards", "ModuleOp"> {
  let summary = "Drop implied guards, merge ranges, order guards";
  let description = [{
    Within each guard set: merges range guards on one size (keeping the
    reason of the bound that wins), drops duplicates and relations implied
    by the other guards (Presburger implication), drops unused symbols, and
    orders the guards so that cheap and likely-to-fail checks come first:
    rank, dtype, device, size ranges, size relations, scalars, contiguity,
    alignment, aliasing.
  }];
}

def TgcPrintGuards : Pass<"tgc-print-guards", "ModuleOp"> {
  let summary = "Print symbols, ranges and guards in readable form";
  let description = [{
    A report on standard error, per guard set: the symbols with their
    ranges, hints and origins, then each guard with its index, text, reason
    and location. The IR is unchanged.
  }];
}

def TgcDecompose : Pass<"tgc-decompose", "func::FuncOp"> {
  let summary = "Rewrite composites whose primitive form fuses or lowers "
                "better";
  let description = [{
    Runs on the `tgc` dialect before `tgc-fuse`. Each rewrite replaces a
    composite op by `tgc` primitives that compute the same values, where
    the primitives fuse with their neighbours or reach a faster lowering:

    - `tgc.conv2d` with a 1x1 kernel, unit stride, no padding and one
      group (pointwise convolutions of ResNet bottlenecks and MobileNets)
      becomes reshapes around one `tgc.matmul` of the weight `[O, C]` with
      the input `[N, C, H*W]` (the reshapes are views): a cuBLASLt GEMM on
      the GPU and a contraction with a vectorized inner loop on the CPU,
      instead of a window loop nest. The bias is a broadcast `tgc.add`,
      which fuses as the matmul's epilogue (f32 and f64 only: for 16-bit
      types the convolution adds its bias before its single rounding).
    - `tgc.max_pool2d` / `tgc.avg_pool2d` whose one window covers the whole
      input (global pooling, `AdaptiveAvgPool2d(1)`) become `tgc.amax` /
      `tgc.mean` over the two spatial dims with `keepdim`: a row reduction
      that fuses with its producers (the ReLU before the pool) instead of a
      window op. `divisor_override` keeps the pool.

    Only static channel and spatial sizes are rewritten (the batch may be
    dynamic), so the reshapes stay views everywhere. The rewrites are exact
    (the same sums in the same order, NaN propagation as the pools), so
    results match the composite's lowering and the reference interpreter.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TgcFuse : Pass<"tgc-fuse", "func::FuncOp"> {
  let summary = "Form fusion groups (one kernel each) with a cost model";
  let description = [{
    Groups tgc ops into `tgc.fusion_group` regions, each compiled to one
    kernel, in the spirit of Inductor's scheduler:

    * vertical: elementwise chains and broadcasts; elementwise producers of
      a reduction (prologue) and consumers over its output (epilogue);
    * rows: row-wise ops over the same rows (softmax, log_softmax,
      layer_norm, rms_norm, last-dimension reductions) with their
      elementwise producers and consumers, e.g. softmax followed by the
      entropy `-(p * log(p)).sum(-1)`;
    * horizontal: sibling groups that read the same input over the same
      iteration space (mean and variance of one tensor);
    * matmul epilogues: matmul / linear with elementwise consumers of its
      single result (bias, activation, residual).

    Never fused: two matmuls; a multi-pass row op (softmax, layer norm)
    into a group that already holds one (each pass would recompute the
    other's row); a reduction over other dimensions than a
    following row-wise op needs (a column sum feeding a row-wise division
    needs every row first); groups whose merge would create a cycle; groups
    larger than `max-group-size` ops. Symbolic sizes are compared
    structurally (`?` sizes through tensor.dim are the same size when they
    come from the same value), so fusion works with dynamic shapes.
    Annotations (tgc_sym.bind) of values that end up inside a group are
    dropped.
  }];
  let options = [
    Option<"maxGroupSize", "max-group-size", "unsigned", "64",
           "Largest number of ops in one group">,
  ];
}

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
    `chunk-size`. Reduction dimensions are never tiled. Producers of other
    groups are never fused (that would recompute them per iteration).

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
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect"];
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

def TgcMathToIntrinsics : Pass<"tgc-math-to-intrinsics"> {
  let summary = "Lower math ops with an exact LLVM intrinsic to it";
  let description = [{
    `math.fma`, `floor`, `ceil`, `trunc`, `round`, `roundeven`, `absf`,
    `copysign`, `sqrt`, `exp`, `exp2`, `log`, `log2`, `log10`, `sin`, `cos`
    and `powf` become the matching `llvm.intr.*` operations, which LLVM
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

def TgcUnshareInits : Pass<"tgc-unshare-inits", "func::FuncOp"> {
  let summary = "A value bound for an out buffer gets inits of its own";
  let description = [{
    Runs right before `eliminate-empty-tensors`, which follows the init
    chain of a value that `tgc.write_out` materializes in an out buffer
    (`materialize_in_destination ... restrict` into a memref) back to a
    `tensor.empty` and replaces that with the out buffer
    (`to_tensor restrict`). That is sound only if nothing else writes into
    that chain: one-shot bufferization sees neither the materialize's copy
    into the memref nor that the buffer must keep its value to the end. CSE
    gives sibling kernels one init (two `amin` reductions share one
    `tensor.empty` filled with +inf); the sibling was then computed in the
    out buffer and overwritten by the write_out's copy, or started from the
    value written there instead of +inf (fuzzer seeds 202037, 202038).

    For each such materialize: where a link of the chain is used by an op
    the value does not depend on (or the value itself is another op's
    init), the chain from that link down gets its own copies of the empty
    tensors, casts and fills it consists of; if it holds anything else, the
    materialize drops `restrict` (a copy into the out buffer, no
    elimination). Ops the value depends on may share the chain (the fill of
    a matmul whose bias epilogue is the value).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def TgcHoistAllocas : Pass<"tgc-hoist-allocas", "func::FuncOp"> {
  let summary = "Hoist fixed-size stack buffers out of loops";
  let description = [{
    After promote-buffers-to-stack and convert-scf-to-openmp, the small
    temporaries of a kernel are `memref.alloca`s inside loop bodies, each in
    a `memref.alloca_scope`. A fixed-size alloca is moved to the entry of
    the enclosing `omp.parallel` region (one buffer per thread) or of the
    function, and the scopes are inlined: the stack no longer grows per
    iteration, and the loop bodies become plain regions that lower to
    control flow. Sound because a freshly allocated buffer has undefined
    contents: bufferized code writes a temporary before reading it in every
    iteration, so reusing one buffer across iterations changes nothing.
  }];
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

def TgcCheckSymbolNames : Pass<"tgc-check-symbol-names", "ModuleOp"> {
  let summary = "Reject functions named like a symbol the compiled code calls";
  let description = [{
    The CPU code TGC generates calls the C math library (`exp`, `tanhf`,
    `fmod`), the C library (`malloc`, `free`, `memcpy`), LLVM's and MLIR's
    helpers (`__powidf2`, `_mlir_ciface_*`) and TGC's runtime
    (`tgc_report_check_failure`). A function with a body and one of those
    names would be called instead of the library (a function `@exp` that
    calls `tgc.exp` on `f64` recursed until the stack overflowed; `@tanh` on
    `f64` failed with an operand type mismatch; `@malloc` failed to link).
    This pass fails with a diagnostic at such a function, before any
    lowering.

    Reserved: the functions of C99's `<math.h>` (with their `f` and `l`
    forms), the allocation, memory and process functions of `<stdlib.h>` and
    `<string.h>`, names that begin with `__` or `_mlir`, and TGC's runtime
    prefixes (`tgc_guard_`, `tgc_report_`, `tgc_take_`). The JIT of
    `tgc-run`, the C API and Python never meet this error: they give the
    entry function the private symbol `tgc_entry_<name>`. Objects and
    shared objects (`tgc-translate --tgc-to-object`) keep the module's names,
    which are their interface, so there a reserved name is an error.
  }];
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
    * wraps the rest of the block in `scf.if`: on failure it skips it.

    At the function's top level the failure path calls the runtime's
    `tgc_report_alloc_failure(bytes, what)` ("cannot allocate 4398046511104
    bytes (4.0 TiB) for the arena of intermediate values of @f (out of
    memory)"), frees the buffers allocated so far and returns poison
    results, which the caller does not read. Inside a loop (a kernel's
    per-iteration temporary) the failure sets a flag of the function
    instead (the loop's other iterations and threads go on), and the
    function reports it after its loops with `tgc_report_check_failure`:
    the call fails, its results are freed.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::ub::UBDialect"];
}

def TgcPlanMemory : Pass<"tgc-plan-memory", "func::FuncOp"> {
  let summary = "Place intermediate buffers in one arena, reusing memory";
  let description = [{
    Runs after bufferization. Every intermediate buffer (a `memref.alloc` of
    the function's body that is not returned) becomes a `memref.view` into
    one arena allocated once per call. Buffers whose lifetimes (allocation
    to last use of the buffer or a view of it) do not overlap share memory:
    a freed slot is reused when its size is at least the new buffer's for
    every size the arguments may have (proved with the symbolic size
    library), so sizes and offsets are symbolic expressions of the
    arguments' sizes, evaluated once per call. Slots are 64-byte aligned.
    A run of consecutive generics (and the copies between them) of one
    fusion group is one GPU kernel (tgc-gpu-form-kernels), whose ops run
    interleaved: a buffer any of them uses is alive over the whole run.

    The plan is recorded on the function as `tgc.memory_plan` (number of
    buffers and slots; arena and peak bytes as affine maps over argument
    sizes, listed in `dims` as argument/dimension pairs) and reported as a
    remark. With `check`, an independent checker proves that no two buffers
    live at the same time overlap and that every buffer fits in the arena,
    for all argument sizes; a failure is an error.

    Buffers allocated inside loops or whose size depends on a value computed
    in the body are left as they are.

    With `checked-size` the arena's byte count is computed with overflow
    checks and is -1 when it overflows, which `tgc-check-allocations` turns
    into an error of the call (the CPU pipeline). The GPU's launch plan
    evaluates sizes with overflow checks itself.
  }];
  let options = [
    Option<"check", "check", "bool", "false",
           "Prove that simultaneously live buffers never overlap">,
    Option<"checkedSize", "checked-size", "bool", "false",
           "Compute the arena's size with overflow checks (-1 on overflow)">,
    Option<"report", "report", "bool", "false",
           "Report the plan as a remark on each function">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}


def TgcFuseGroupElementwise : Pass<"tgc-fuse-group-elementwise", "func::FuncOp"> {
  let summary = "Merge elementwise producers into consumers of their group";
  let description = [{
    Runs on linalg on tensors tagged with `tgc.group` (tgc-to-linalg, then
    tgc's tag-preserving generalization). Each all-parallel
    `linalg.generic` merges into every consumer of the same group that
    reads it through a permutation of the consumer's loops, with upstream's
    elementwise fusion; the fused op keeps the consumer's tags. A producer
    with several consumers is copied into each and erased once unused, so
    a GPU kernel of the group recomputes a few operations instead of
    writing and reading back an intermediate tensor (softmax's `x - max`
    feeds both the sum and the normalization). Producers of other groups
    and reads through broadcasts (which would recompute per element) are
    left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

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

#endif // TGC_TRANSFORMS_PASSES_TD
