//===- Passes.td - Memory passes -------------------------------------*- tablegen -*-===//
//
// Memory: buffers that bufferization may share, and one arena per function.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_MEMORY_PASSES_TD
#define TGC_TRANSFORMS_MEMORY_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcEmptyReshapes : Pass<"tgc-empty-reshapes", "func::FuncOp"> {
  let summary = "A reshape of a tensor without elements becomes a tensor.empty";
  let description = [{
    Runs before bufferization. A `tensor.collapse_shape` or
    `tensor.expand_shape` with a static size 0 in its source or result has
    no elements to move: it becomes a `tensor.empty` of its result's sizes
    (the same value, since there is nothing to read). A linear layer whose
    batch dims hold a 0 (specialized) and a dynamic size broke both ways
    (fuzz-crash.py seed 6001028):
    - one-shot bufferization gave the collapse `tensor<0x?x4x?xf64> into
      tensor<?x?xf64>` the buffer type `memref<0x?xf64>`, which the memref
      verifier rejects (a group with a dynamic size must collapse to a
      dynamic one);
    - the expand back, `memref<?x2xf64> into memref<0x?x4x2xf64>`, had its
      dynamic size recomputed as the source's size over the group's
      static sizes, 0: a division by zero, which LLVM turned into code
      that falls off the end of the function (a crash on the call).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
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
