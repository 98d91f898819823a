//===- TgcGpuAttrs.td - tgc_gpu attributes ------------------*- tablegen -*-===//

#ifndef TGC_DIALECT_TGCGPU_IR_TGCGPUATTRS_TD
#define TGC_DIALECT_TGCGPU_IR_TGCGPUATTRS_TD

include "tgc/Dialect/TgcGpu/IR/TgcGpuBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class TgcGpu_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TgcGpu_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// `unfused`: no op after the GEMM is its epilogue (the default, not
// printed); `none`: the op after it is only the rounding of the result to
// its output type.
def TgcGpu_GemmEpilogue : I32EnumAttr<"GemmEpilogue",
    "the elementwise op cuBLASLt applies to a GEMM's result", [
      I32EnumAttrCase<"unfused", 0>,
      I32EnumAttrCase<"none", 1>,
      I32EnumAttrCase<"bias", 2>,
      I32EnumAttrCase<"relu", 3>,
      I32EnumAttrCase<"bias_relu", 4>,
      I32EnumAttrCase<"gelu", 5>,
      I32EnumAttrCase<"bias_gelu", 6>,
      I32EnumAttrCase<"residual", 7>,
      I32EnumAttrCase<"bias_residual", 8>]> {
  let cppNamespace = "::mlir::tgc::tgc_gpu";
  let genSpecializedAttr = 0;
}

def TgcGpu_StrategyKind : I32EnumAttr<"StrategyKind",
    "how a kernel runs its ops", [
      I32EnumAttrCase<"flat", 0>,
      I32EnumAttrCase<"element", 1>,
      I32EnumAttrCase<"row", 2>,
      I32EnumAttrCase<"tree", 3>,
      I32EnumAttrCase<"loop", 4>]> {
  let cppNamespace = "::mlir::tgc::tgc_gpu";
  let genSpecializedAttr = 0;
}

def TgcGpu_GemmAttr : TgcGpu_Attr<"Gemm", "gemm"> {
  let summary = "a contraction that cuBLASLt runs";
  let description = [{
    Set on a `linalg.generic` that is a (batched) matrix product of dense
    buffers: `batch`, `m`, `n` and `k` are its loops in each role (each
    loop exactly once; `m` may be several loops that the output keeps
    contiguous), `trans_a` and `trans_b` whether A and B are read
    transposed, and `epilogue`, when there is one, the elementwise op
    after it that cuBLASLt applies while writing (`none`: only the rounding
    to the output type; `bias`, `relu`, `bias_relu`, `gelu` (tanh),
    `bias_gelu`; `residual` and `bias_residual`: a tensor of the output's
    shape added too, cuBLASLt's `beta * C` with beta 1); that op's generic
    carries `tgc_gpu.gemm_epilogue_of`.
    `tf32` (f32 operands only): cuBLASLt may round A and B to TF32 and
    accumulate in f32 (`CUBLAS_COMPUTE_32F_FAST_TF32`), as PyTorch does
    where its flags allow it (tgc-mark-tf32).
    The launch plan builds the cuBLASLt call from it.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t">:$batch,
    ArrayRefParameter<"int64_t">:$m,
    "int64_t":$n,
    "int64_t":$k,
    "bool":$trans_a,
    "bool":$trans_b,
    DefaultValuedParameter<"::mlir::tgc::tgc_gpu::GemmEpilogue",
                           "::mlir::tgc::tgc_gpu::GemmEpilogue::unfused">:$epilogue,
    DefaultValuedParameter<"bool", "false">:$tf32
  );
  let assemblyFormat = [{
    `<` (`batch` `=` `[` $batch^ `]` `,` ` `)? `m` `=` `[` $m `]` `,`
    `n` `=` $n `,` `k` `=` $k `,` `trans_a` `=` $trans_a `,`
    `trans_b` `=` $trans_b `` custom<GemmOptions>($epilogue, $tf32) `>`
  }];
  let genVerifyDecl = 1;
}

def TgcGpu_ConvAttr : TgcGpu_Attr<"Conv", "conv"> {
  let summary = "a 2-d convolution that cuDNN runs";
  let description = [{
    Set on a `linalg.generic` that is a direct NCHW convolution, as
    tgc-to-linalg's `library-convolutions` builds it: loops `(n, o, oh,
    ow, c, kh, kw)`, the weight `[O, C / groups, kH, kW]` its one input,
    the output `[N, O, H', W']` its init, and the input `[N, C, H, W]`
    read in its body at `(n, o / (O / groups) * C / groups + c, oh *
    stride + kh * dilation - padding, ...)`, zero outside it. The generic
    is the convolution's meaning (a kernel could run it); the launch plan
    runs it as one `cudnnConvolutionForward` instead, with these window
    parameters. `tf32` (f32 only): cuDNN may compute with TF32 tensor
    cores, as PyTorch does under `torch.backends.cudnn.allow_tf32`.

    `kind` names the convolution's product the generic computes, and so
    which of its three tensors it writes (`tgc.conv2d_backward_input` and
    `tgc.conv2d_backward_weight` lower to the other two):
    - `"forward"` (the default): as above; writes `y`.
    - `"backward_data"`: loops `(n, c, h, w, o, kh, kw)`, the weight its
      input, the input's gradient `dx [N, C, H, W]` its init, and `dy [N,
      O, H', W']` read in its body where `(h + padding - kh * dilation)`
      is a multiple of the stride inside `dy`; cuDNN's backward-data
      operation.
    - `"backward_filter"`: loops `(o, c, kh, kw, n, oh, ow)`, `dy` its
      input, the weight's gradient `dw [O, C / groups, kH, kW]` its init
      (packed), and the input read in its body as the forward reads it;
      cuDNN's backward-filter operation.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$stride,
    ArrayRefParameter<"int64_t">:$padding,
    ArrayRefParameter<"int64_t">:$dilation,
    "int64_t":$groups,
    DefaultValuedParameter<"bool", "false">:$tf32,
    StringRefParameter<"forward, backward_data or backward_filter",
                       "\"forward\"">:$kind
  );
  let assemblyFormat = [{
    `<` `stride` `=` `[` $stride `]` `,` `padding` `=` `[` $padding `]` `,`
    `dilation` `=` `[` $dilation `]` `,` `groups` `=` $groups
    `` custom<ConvOptions>($tf32, $kind) `>`
  }];
  let genVerifyDecl = 1;
}

def TgcGpu_StrategyAttr : TgcGpu_Attr<"Strategy", "strategy"> {
  let summary = "the kernel strategy that runs an op";
  let description = [{
    Set on each `linalg.generic` (and host `scf.for` nest) that a kernel
    will run; the ops with the same `kernel` number (consecutive in the
    block) are one kernel, or two for a tree, whose first kernel reads the
    reduction and whose second finishes each output with the fill before
    it and the elementwise epilogues after it.

    - `flat`: an elementwise op over contiguous buffers, `vector` elements
      (2, 4 or 8: one 16-byte access) per access in a grid-stride loop;
    - `element`: a thread per point of the parallel loops;
    - `row`: one block (or warp) per row of a group of row stages;
    - `tree`: a reduction as a two-stage tree;
    - `loop`: a sequential loop nest, its outer parallel loops as threads.

    `threads` is the block size (a multiple of 32 up to 1024) of the
    kernel's grid-stride or row loops (a tree's final stage has its own,
    the target's). `vectors` lets a row or tree kernel read and write
    16-byte vectors where its buffers allow (the launch plan then guards
    their alignment); `registers` lets a row kernel over rows of one static
    length keep each thread's elements in registers across stages.
  }];
  let parameters = (ins
    EnumParameter<TgcGpu_StrategyKind>:$kind,
    "int64_t":$kernel,
    "int64_t":$threads,
    DefaultValuedParameter<"int64_t", "0">:$vector,
    DefaultValuedParameter<"bool", "false">:$vectors,
    DefaultValuedParameter<"bool", "false">:$registers
  );
  let assemblyFormat = [{
    `<` $kind `,` struct($kernel, $threads, $vector, $vectors, $registers) `>`
  }];
  let genVerifyDecl = 1;
}

#endif // TGC_DIALECT_TGCGPU_IR_TGCGPUATTRS_TD
