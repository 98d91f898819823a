//===- TgcCreationOps.td - tgc constants, fills and random ----*- tablegen -*-===//
//
// The ops of the tgc dialect that make tensors from attributes and sizes
// (constant, full, iota, philox_uniform), included by TgcOps.td: one file
// of a dialect's ops would pass a thousand lines.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CREATION_OPS
#define TGC_CREATION_OPS

def Tgc_ConstantOp : Tgc_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A tensor constant";
  let description = [{
    A tensor whose elements are given by a dense (or splat) elements
    attribute. Scalars in PyTorch expressions (`x + 1`) become rank-0
    constants.

    ```mlir
    %c = tgc.constant dense<1.0> : tensor<f32>
    %w = tgc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tgc_FullOp : Tgc_Op<"full", [Pure]> {
  let summary = "A tensor filled with one value (torch.full)";
  let description = [{
    A tensor of the result type with every element equal to `value`. Sizes
    that are `?` in the result type are given, in order, by the index
    operands.

    ```mlir
    %z = tgc.full 0.0 : f32 : tensor<4x8xf32>
    %o = tgc.full 1 : i64 [%n] : tensor<?x3xi64>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value,
                       Variadic<Index>:$dynamic_sizes);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $value (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tgc_IotaOp : Tgc_Op<"iota", [Pure]> {
  let summary = "An arithmetic sequence (torch.arange)";
  let description = [{
    A rank-1 tensor whose element `i` is `start + i * step`. The length is
    the result type's size, or the index operand when the size is `?`
    (`torch.arange(start, end, step)` has `ceil((end - start) / step)`
    elements; the importer computes it).

    ```mlir
    %i = tgc.iota 0 : i64, 1 : i64 : tensor<8xi64>
    %f = tgc.iota 0.5 : f32, 0.25 : f32 [%n] : tensor<?xf32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$start, TypedAttrInterface:$step,
                       Optional<Index>:$size);
  let results = (outs Tgc_NumericTensor:$result);
  let assemblyFormat = [{
    $start `,` $step (` ` `[` $size^ `]`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tgc_PhiloxUniformOp : Tgc_Op<"philox_uniform", [Pure]> {
  let summary = "Counter-based uniform random numbers in [0, 1) (dropout)";
  let description = [{
    A float tensor of the result type whose element at row-major position
    `i` is the first word `w` of Philox4x32-10 (Salmon et al., SC'11: ten
    rounds, PyTorch's and Random123's constants) with the key
    `(seed mod 2^32, seed div 2^32)` and the counter `(i mod 2^32,
    i div 2^32, stream mod 2^32, stream div 2^32)`, as `(w >> 8) * 2^-24`
    rounded to the element type: 2^24 equally likely values in [0, 1).
    A function of the seed, the stream and the position alone, so every
    kernel and device computes the same numbers; graphs draw a fresh seed
    per call (`torch.randint` of PyTorch's generator), and each random op
    of a graph has its own `stream`. Sizes that are `?` in the result type
    come from the index operands, in order.

    ```mlir
    %u = tgc.philox_uniform %seed stream = 0 : tensor<i64> -> tensor<8x64xf32>
    %v = tgc.philox_uniform %seed stream = 1 [%n] : tensor<i64> -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64]>:$seed, I64Attr:$stream,
                       Variadic<Index>:$dynamic_sizes);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $seed `stream` `=` $stream (` ` `[` $dynamic_sizes^ `]`)? attr-dict `:`
      type($seed) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TGC_CREATION_OPS
