//===- Passes.td - Graph passes --------------------------------------*- tablegen -*-===//
//
// The graph: decomposition and fusion groups.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRANSFORMS_GRAPH_PASSES_TD
#define TGC_TRANSFORMS_GRAPH_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcMarkTf32 : Pass<"tgc-mark-tf32", "func::FuncOp"> {
  let summary = "Mark the f32 products that may run on TF32 tensor cores";
  let description = [{
    PyTorch lets an f32 matrix product or convolution on the GPU round its
    inputs to TF32 (10 mantissa bits, f32 accumulation) behind two flags:
    `torch.backends.cuda.matmul.allow_tf32` (off by default;
    `torch.set_float32_matmul_precision("high")` turns it on) for `mm`,
    `bmm`, `matmul` and `linear`, and `torch.backends.cudnn.allow_tf32` (on
    by default) for convolutions. The frontend passes their values at
    trace time as `matmuls` and `convolutions`, and guards them.

    This pass runs on `tgc` before `tgc-decompose` and sets the unit
    attribute `tgc.tf32` on each f32 `tgc.matmul`, `tgc.bmm` and
    `tgc.linear` (with `matmuls`) and `tgc.conv2d` (with `convolutions`).
    `tgc-decompose` keeps it on the `tgc.matmul` a pointwise convolution
    becomes (a convolution's precision, not a matmul's), `tgc-to-linalg`
    puts it on the product's contraction, and `tgc-gpu-select-strategy` on
    the cuBLASLt GEMM it makes of that (`#tgc_gpu.gemm<..., tf32 = true>`),
    which then computes with `CUBLAS_COMPUTE_32F_FAST_TF32`. A product that
    does not become a GEMM (a grouped convolution's loop kernel) stays f32,
    as does every product on the CPU; the attribute only ever lowers
    precision where PyTorch's flag allows it.

    `scaled_dot_product_attention` is not marked: which of PyTorch's
    kernels runs an f32 attention, and whether it uses TF32, is not
    governed by these flags alone.
  }];
  let options = [
    Option<"matmuls", "matmuls", "bool", "false",
           "f32 matmul, bmm and linear may use TF32 "
           "(torch.backends.cuda.matmul.allow_tf32)">,
    Option<"convolutions", "convolutions", "bool", "false",
           "f32 convolutions may use TF32 (torch.backends.cudnn.allow_tf32)">,
  ];
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
    - `tgc.sum` over one dim of a one-hot row, `where(iota == t & m, a, 0)`
      with `t`, `m` and `a` constant along that dim (nll_loss's backward
      over a vocabulary, where the iota is the class index), becomes the
      row's one value `where(m & 0 <= t < n, a + 0.0, 0)`: no reduction
      over the n classes, which computed every position of every row
      (154 us per GPT-2 training step over 50257 words on the H200). The
      sum of `a` and zeros is `a`; `+ 0.0` turns -0.0 into +0.0 as the sum
      does; an else value of -0.0 is not folded.

    - `tgc.concat` of reshapes that merge the concat dim with the dims
      after it, all the same way (GPT-2's q, k and v gradients `[B, T, H,
      D]` merged to `[B, T, H*D]`), becomes the reshape of a concat along
      the first dim of that group: the concat then reads its producers
      (transposes) directly, and each writes its slice of the result in
      place instead of a temporary that a copy moves into the slice.

    Only static channel, spatial, class and concat sizes are rewritten (the
    batch may be dynamic), so the reshapes stay views everywhere. The
    rewrites are exact (the same sums in the same order, NaN propagation as
    the pools, the same elements in the same places), so results match the
    composite's lowering and the reference interpreter.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TgcSinkGathers : Pass<"tgc-sink-gathers", "func::FuncOp"> {
  let summary = "Gather an elementwise op's operands instead of its result";
  let description = [{
    Runs on the `tgc` dialect after `tgc-decompose`, before `tgc-fuse`.
    `tgc.gather %e, %index dim = d`, where `%e` is an elementwise op's
    result, becomes the elementwise op of its operands gathered the same
    way: an operand of the result's shape is gathered, one of size 1 along
    `d` (or without `d`, broadcast) is used as it is. The elementwise op
    then runs on the index's points only (where `%e` has other users, they
    keep it; the copy computes at most as many points), and when the
    gather was its only user it is not computed in full at all.

    The case it is for: a loss `nll_loss(log_softmax(x), target)` whose
    log_softmax is in primitives (`x - amax - log(sum(exp(x - amax)))`, the
    training graphs' decomposition) reads the one element per row it
    needs: `gather(x) - amax - log(sum)`, instead of a `[rows, classes]`
    result written only for the gather (50257 classes per row in GPT-2).

    Rewritten only with static sizes, when the index covers the input in
    every dim but `d` (each result point reads its own row), and when each
    operand has the result's shape or size 1 along `d`. The values are the
    same (the same op on the same operand values).

    Likewise `tgc.embedding %w, (tgc.expand %i)` becomes
    `tgc.expand (tgc.embedding %w, %i)` (static sizes): BERT's token-type
    ids, gathered per position and expanded over the batch, are looked up
    once per position, and the expansion is a broadcast that the
    embeddings' sum reads in place, instead of a copy of the indices and a
    lookup per batch row. The same index values are checked.
  }];
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
      entropy `-(p * log(p)).sum(-1)`, or by a layer norm (whose passes
      read the softmax's row: tgc-form-kernels computes it once per row);
    * horizontal: sibling groups that read the same input over the same
      iteration space (mean and variance of one tensor);
    * matmul epilogues: matmul / linear with elementwise consumers of its
      single result (bias, activation, residual);
    * convolution epilogues, the same for `tgc.conv2d` (kind
      `convolution`): the ReLU after a convolution is computed where its
      bias is added, one pass over the output instead of two.

    Never fused: two matmuls (or convolutions); an elementwise producer
    into a matmul or convolution; a reduction over other dimensions than a
    following row-wise op needs (a column sum feeding a row-wise division
    needs every row first); groups whose merge would create a cycle; groups
    larger than `max-group-size` ops. Symbolic sizes are compared
    structurally (`?` sizes through tensor.dim are the same size when they
    come from the same value), so fusion works with dynamic shapes.
    Annotations (tgc_sym.bind) of values that end up inside a group are
    dropped.

    With `permutes`, a `tgc.permute` (a transposing copy) groups as an
    elementwise op beside elementwise work (not in rows or reduction
    groups, where it would read across rows): the head split after a
    projection and the head merge before the next one join the
    elementwise work around them (a where over the attention's output, a
    rotary embedding) instead of being copy kernels of their own. A swap
    of the last two dims that a matmul reads, directly or through a
    reshape, stays alone, for the GEMM to read it transposed
    (tgc-gpu-fold-gemm-transposes).

    With `reshapes`, `add(reshape(x), y)` where x is a matmul's result (or
    its bias add's), the reshape static and read only by the add, and y
    of the add's type becomes `reshape(add(x, reshape(y)))` first: GPT-2's
    residual after the view of its `addmm` then joins the GEMM's group,
    where cuBLASLt adds it (tgc-gpu-select-strategy's `bias_residual`).
  }];
  let options = [
    Option<"maxGroupSize", "max-group-size", "unsigned", "64",
           "Largest number of ops in one group">,
    Option<"permutes", "permutes", "bool", "false",
           "Group tgc.permute as an elementwise op (a copy through a "
           "permutation of its loops) unless a matmul reads it (GEMMs "
           "read transposes themselves); the GPU pipeline sets it">,
    Option<"reshapes", "reshapes", "bool", "false",
           "Move a static reshape of a matmul's result below the add that "
           "reads it, so that the add joins the matmul's group (a residual "
           "as a GEMM epilogue); the GPU pipeline sets it">,
  ];
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

    With `siblings` (the default), the generics of a group that are then
    still apart, elementwise over the same static loops, independent of
    each other and writing every output through the identity map, merge
    into one generic with the inputs and outputs of both, placed where the
    later one was (when nothing reads the earlier one's results before
    it): one kernel instead of one per sibling (`sin(x)` and `cos(x)`, a
    fused projection's q, k and v head splits that `tgc-fuse` groups
    through their slices).
  }];
  let options = [
    Option<"siblings", "siblings", "bool", "true",
           "Merge a group's independent elementwise generics over the same "
           "loops into one multi-output generic">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TgcCloneSharedFills : Pass<"tgc-clone-shared-fills", "func::FuncOp"> {
  let summary = "One fill per accumulator that a reduction writes";
  let description = [{
    A `linalg.fill` of a `tensor.empty` whose result is the init (`outs`)
    of several ops (CSE merges identical fills: every reduction of a
    batch norm's statistics starts from one zero tensor) is cloned, with
    its `tensor.empty`, before each of those users but the first. One-shot
    bufferization otherwise gives all but one user a copy of the filled
    buffer (on the GPU a fill kernel and a copy kernel per reduction),
    where each clone bufferizes in place and folds into the reduction that
    writes it (the tree kernels' initial value). Fills read as inputs are
    left shared.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TgcHoistChecks : Pass<"tgc-hoist-checks", "func::FuncOp"> {
  let summary = "Move checks that read only the inputs to the start of the "
                "function";
  let description = [{
    Runs on linalg on tensors (after tgc-to-linalg). Each `cf.assert` whose
    condition is computed from the function's arguments alone (an index
    tensor's range check: a fill, an `all of` reduction and its read; a
    size check), moves with that computation to the start of the
    function, in their order. The GPU launch plan waits for a call's
    device-side checks right after its last check step: checks of the
    inputs first means one wait at the start of the call and none at its
    end, so the kernels after them run without the host waiting (an
    embedding's indices, a loss's labels, the embedding backward's
    scatter), and a failed check stops the call before it computes
    anything.

    A check stays where it is when its computation has more than 32 ops,
    or when an op of it that other ops use too is not elementwise, a fill,
    a view or arithmetic (an index an `argmax` computes, which the function
    uses as well): moving it would move a computation, and lengthen its
    result's life, for the check's sake.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TgcReadOutsInPlace : Pass<"tgc-read-outs-in-place", "func::FuncOp"> {
  let summary = "Update an out argument in place where one elementwise "
                "kernel reads and writes it";
  let description = [{
    Runs on buffers, after one-shot bufferization and before memory
    planning (the GPU pipeline). tgc-to-linalg reads an argument that the
    function also writes (`tgc.write_out`: `p.add_(g)`, an optimizer's
    step) from a copy taken on entry, so that no kernel reads an element
    an earlier kernel already overwrote: after bufferization a
    `memref.alloc` and a `memref.copy %arg, %alloc`. The copy and its
    buffer go, and the reader reads the argument itself, when:

    - the buffer's only other uses are inputs of one `linalg.generic` with
      only parallel loops, read through the identity map (deallocations
      aside);
    - nothing between the copy and that generic may write the argument;
    - the generic writes the argument only as an output with the identity
      map (the argument itself, not a view of it).

    Each point of the generic then reads the argument's element before it
    writes the same element, in the same thread: the update is correct in
    place. For AdamW over a parameter (the parameter and both moments read
    and written by one fused kernel) that is one kernel and no copies
    instead of three copy kernels and a kernel. Guards already require out
    arguments not to overlap other arguments. (On the CPU, kernels are
    tiled before bufferization and read views of the copy: the pass leaves
    them.)
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // TGC_TRANSFORMS_GRAPH_PASSES_TD
