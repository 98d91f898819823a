//===- TgcIndexingOps.td - tgc gathers and scatters -----------*- tablegen -*-===//
//
// The indexing ops of the tgc dialect (gather, index_select, embedding,
// scatter_add), included by TgcOps.td: one file of a dialect's ops would
// pass a thousand lines.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_INDEXING_OPS
#define TGC_INDEXING_OPS

def Tgc_GatherOp : Tgc_Op<"gather", [Pure, Tgc_InferTensorType]> {
  let summary = "Gather along a dimension (torch.gather)";
  let description = [{
    `out[i][j][k] = input[index[i][j][k]][j][k]` for `dim = 0` (and so on):
    `index` has the input's rank, its sizes are the result's, and each of
    its sizes other than `dim` is at most the input's. Indices out of range
    are a runtime error, never a silent read.

    ```mlir
    %g = tgc.gather %x, %idx dim = 1 : tensor<4x8xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, Tgc_IndexTensor:$index,
                       I64Attr:$dim);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` `=` $dim attr-dict `:` type($input) `,`
      type($index) `->` type($result)
  }];
}

def Tgc_IndexSelectOp : Tgc_Op<"index_select", [Pure, Tgc_InferTensorType]> {
  let summary = "Select slices by index (torch.index_select)";
  let description = [{
    Picks the slices `index[0], index[1], ...` of dimension `dim`; `index`
    is rank 0 or 1.

    ```mlir
    %s = tgc.index_select %x, %idx dim = 0 : tensor<?x8xf32>, tensor<3xi64> -> tensor<3x8xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, Tgc_IndexTensor:$index,
                       I64Attr:$dim);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` `=` $dim attr-dict `:` type($input) `,`
      type($index) `->` type($result)
  }];
}

def Tgc_EmbeddingOp : Tgc_Op<"embedding", [Pure, Tgc_InferTensorType]> {
  let summary = "Embedding lookup (torch.nn.functional.embedding)";
  let description = [{
    Rows of the rank-2 `weight` picked by `indices`; the result shape is
    the indices' shape followed by the embedding size.

    ```mlir
    %e = tgc.embedding %w, %ids : tensor<1000x64xf32>, tensor<?x16xi64> -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$weight, Tgc_IndexTensor:$indices);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $weight `,` $indices attr-dict `:` type($weight) `,` type($indices) `->`
      type($result)
  }];
}

def Tgc_ScatterAddOp : Tgc_Op<"scatter_add", [Pure, Tgc_InferTensorType]> {
  let summary = "Accumulate into positions picked by an index "
                "(torch.scatter_add, torch.index_add)";
  let description = [{
    The result is `base` with `src`'s elements added at the positions
    `index` picks along `dim`; positions picked twice get both additions
    (in an unspecified order, as PyTorch's CUDA kernels). Two forms:

    * `index` has `src`'s rank (torch.scatter_add):
      `out[i][index[i][j][k]][k] += src[i][j][k]` for `dim = 1`, over the
      positions of `index`, whose sizes are at most `src`'s, and at most
      `base`'s in the dims other than `dim`;
    * `index` has rank 1 and `src` a higher rank (torch.index_add): slice
      `j` of `src` along `dim` is added to slice `index[j]` of `base`;
      `src` has `base`'s sizes but along `dim`, where it has the index's.

    An index outside `[0, base.size(dim))` is a runtime error, as in
    PyTorch: never a write out of bounds.

    ```mlir
    %s = tgc.scatter_add %base, %idx, %src dim = 0 : tensor<8x4xf32>, tensor<6x4xi64>, tensor<6x4xf32> -> tensor<8x4xf32>
    %a = tgc.scatter_add %base, %ids, %grad dim = 0 : tensor<1000x64xf32>, tensor<?xi64>, tensor<?x64xf32> -> tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$base, Tgc_IndexTensor:$index,
                       Tgc_NumericTensor:$src, I64Attr:$dim);
  let results = (outs Tgc_NumericTensor:$result);
  let assemblyFormat = [{
    $base `,` $index `,` $src `dim` `=` $dim attr-dict `:` type($base) `,`
      type($index) `,` type($src) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// True for the torch.index_add form: a rank-1 index picking whole
    /// slices of a `src` of higher rank.
    bool isSliceForm() {
      return getIndex().getType().getRank() == 1 &&
             getSrc().getType().getRank() > 1;
    }
  }];
}

#endif // TGC_INDEXING_OPS
