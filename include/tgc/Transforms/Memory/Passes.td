//===- Passes.td - Memory passes -------------------------------------*- tablegen -*-===//
//
// Memory: buffers that bufferization may share, and one arena per function.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_MEMORY_PASSES_TD
#define TGC_TRANSFORMS_MEMORY_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // TGC_TRANSFORMS_MEMORY_PASSES_TD
