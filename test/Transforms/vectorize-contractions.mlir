// RUN: tgc-opt %s --tgc-vectorize-contractions="vector-bits=512" -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-vectorize-contractions="vector-bits=256" -split-input-file | FileCheck %s --check-prefix=AVX2

// A matmul whose B and C rows are contiguous: tiles of 8 rows by two
// vectors of 16, their 16 accumulators carried through the loop over k
// (loaded from C before it, stored after); B's two vectors loaded once per
// k and one broadcast element of A per row. Leftover rows run one at a
// time; the last partial column tile is masked. With 256-bit vectors: 4
// rows by two vectors of 8.

#mm = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
       affine_map<(i, j, k) -> (i, j)>]
// CHECK-LABEL: func.func @matmul
// CHECK: %[[M:.*]] = memref.dim %arg0, %c0
// CHECK: %[[REM:.*]] = arith.remui %[[M]], %c8
// CHECK: %[[WHOLE:.*]] = arith.subi %[[M]], %[[REM]]
// CHECK: scf.for %[[I:.*]] = %c0 to %[[WHOLE]] step %c8
// CHECK: scf.for %[[J:.*]] = %c0 to %{{.*}} step %c32
// CHECK-COUNT-16: vector.load %arg2[{{.*}}] : memref<?x?xf32>, vector<16xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-2: vector.load %arg1[%[[K]], {{.*}}] : memref<?x?xf32>, vector<16xf32>
// CHECK: memref.load %arg0[%[[I]], %[[K]]]
// CHECK: vector.broadcast
// CHECK-COUNT-2: vector.fma
// CHECK: scf.yield
// CHECK-COUNT-16: vector.store
// Partial column tile: masks of the lanes left.
// CHECK: vector.create_mask
// CHECK: vector.maskedload %arg2
// Leftover rows, one at a time.
// CHECK: scf.for %{{.*}} = %[[WHOLE]] to %[[M]] step %c1
// CHECK-NOT: linalg.generic
// AVX2-LABEL: func.func @matmul
// AVX2: arith.remui %{{.*}}, %c4
// AVX2: scf.for %{{.*}} step %c16
// AVX2: iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Without `contract` on the add, no fused multiply-add: a multiply and an
// add (the scalar loop's rounding).

// CHECK-LABEL: func.func @no_contract
// CHECK-NOT: vector.fma
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
#mm = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
       affine_map<(i, j, k) -> (i, j)>]
func.func @no_contract(%a: memref<4x8xf32>, %b: memref<8x40xf32>, %c: memref<4x40xf32>) {
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x40xf32>) outs(%c : memref<4x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An im2col convolution's product: the weight [O, K] broadcast over the
// batch, the columns [N, K, P]. The batch is an outer loop; A is the
// operand that does not depend on the output's last dim, whatever its
// position among the inputs.

// CHECK-LABEL: func.func @batched
// CHECK: scf.for %[[N:.*]] = %c0 to %c2 step %c1
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c8
// CHECK: scf.for %[[K:.*]] = %c0 to %c36 step %c1
// CHECK: vector.load %arg0[%[[N]], %[[K]], %{{.*}}] : memref<2x36x100xf32>
// CHECK: memref.load %arg1[%[[I]], %[[K]]] : memref<16x36xf32>
// CHECK: vector.fma
#bmm = [affine_map<(n, i, j, k) -> (n, k, j)>, affine_map<(n, i, j, k) -> (i, k)>,
        affine_map<(n, i, j, k) -> (n, i, j)>]
func.func @batched(%cols: memref<2x36x100xf32>, %w: memref<16x36xf32>, %c: memref<2x16x100xf32>) {
  linalg.generic {indexing_maps = #bmm, iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%cols, %w : memref<2x36x100xf32>, memref<16x36xf32>) outs(%c : memref<2x16x100xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %p, %acc fastmath<contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// x W^T (a linear layer): A and B contiguous along k, C not along j. With
// `reassoc`, tiles of 4 x 4 dot products over vectors along k (a masked
// last step), each summed across lanes and added to C.

// CHECK-LABEL: func.func @linear
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c4
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c4
// CHECK: %[[KW:.*]] = arith.subi %c100, %{{.*}}
// CHECK: scf.for %{{.*}} = %c0 to %[[KW]] step %c16 iter_args
// CHECK-COUNT-8: vector.load
// CHECK-COUNT-16: vector.fma
// CHECK: scf.for %[[T:.*]] = %[[KW]] to %c100 step %c16 iter_args
// CHECK: vector.create_mask
// CHECK: vector.maskedload
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
#lin = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
        affine_map<(i, j, k) -> (i, j)>]
func.func @linear(%x: memref<?x100xf32>, %w: memref<30x100xf32>, %c: memref<?x30xf32>) {
  linalg.generic {indexing_maps = #lin, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x100xf32>, memref<30x100xf32>) outs(%c : memref<?x30xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: the same dot products without `reassoc` (their order is
// kept: tgc-run --strict-reductions), a column that is not contiguous, an
// integer product, and a body that is not a multiply-add.

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.
// CHECK-COUNT-4: linalg.generic
#lin = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
        affine_map<(i, j, k) -> (i, j)>]
#mm = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
       affine_map<(i, j, k) -> (i, j)>]
func.func @left_alone(%x: memref<8x100xf32>, %w: memref<30x100xf32>, %c: memref<8x30xf32>,
                      %bs: memref<100x30xf32, strided<[60, 2]>>,
                      %xi: memref<8x100xi32>, %bi: memref<100x30xi32>, %ci: memref<8x30xi32>) {
  linalg.generic {indexing_maps = #lin, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x100xf32>, memref<30x100xf32>) outs(%c : memref<8x30xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %bs : memref<8x100xf32>, memref<100x30xf32, strided<[60, 2]>>) outs(%c : memref<8x30xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xi, %bi : memref<8x100xi32>, memref<100x30xi32>) outs(%ci : memref<8x30xi32>) {
  ^bb0(%a: i32, %b: i32, %acc: i32):
    %p = arith.muli %a, %b : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %bs : memref<8x100xf32>, memref<100x30xf32, strided<[60, 2]>>) outs(%c : memref<8x30xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.maximumf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// f64: 8 lanes per 512-bit vector.

// CHECK-LABEL: func.func @f64
// CHECK: vector.fma %{{.*}} : vector<8xf64>
#mm = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
       affine_map<(i, j, k) -> (i, j)>]
func.func @f64(%a: memref<9x5xf64>, %b: memref<5x20xf64>, %c: memref<9x20xf64>) {
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<9x5xf64>, memref<5x20xf64>) outs(%c : memref<9x20xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p fastmath<contract> : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// A block of more rows than one tile (tgc-form-kernels' 64 x 256 blocks of
// large products): column tiles outside row tiles, so that B's panel
// stays in cache across the block's rows, and k in blocks of 256 (C's
// tiles stored and reloaded between them: each sum still in k's order).
// With 4 row tiles or more, each panel (256 x 32) is first packed into a
// contiguous buffer, which the row tiles read.

// CHECK-LABEL: func.func @block
// CHECK: %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK: scf.for %[[KC:.*]] = %c0 to %c600 step %c256
// CHECK: %[[KE:.*]] = arith.minui %{{.*}}, %c600
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c32
// CHECK: scf.for %{{.*}} = %[[KC]] to %[[KE]] step %c1 {
// CHECK: vector.load %arg1
// CHECK: vector.store %{{.*}}, %[[P]]
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %[[KC]] to %[[KE]] step %c1 iter_args
// CHECK-COUNT-2: vector.load %[[P]]
// CHECK-NOT: vector.load %arg1
#mm = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
       affine_map<(i, j, k) -> (i, j)>]
func.func @block(%a: memref<64x600xf32>, %b: memref<600x256xf32>, %c: memref<64x256xf32>) {
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x600xf32>, memref<600x256xf32>) outs(%c : memref<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A block of a large `x W^T` (a linear layer's product, W read along k):
// tiled along j like @block, its panel of W packed transposed, a square of
// 16 x 16 at a time: 16 rows of W loaded along k, transposed by 4 rounds
// of 16 shuffles (swapping rows 8 apart first), stored as 16 rows of the
// panel; one square's code, in a loop over the tile's two vectors that
// LLVM does not unroll. No dot products, no sums across lanes. 256-bit
// vectors: squares of 8.

// CHECK-LABEL: func.func @block_linear
// CHECK: %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK: scf.for %[[KC:.*]] = %c0 to %c512 step %c256
// CHECK: scf.for %[[J0:.*]] = %c0 to %{{.*}} step %c32
// CHECK-NOT: vector.create_mask
// CHECK: scf.for %[[K0:.*]] = %[[KC]] to %{{.*}} step %c16 {
// CHECK: scf.for %[[V:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[C0:.*]] = arith.muli %[[V]], %c16
// CHECK: %[[JB:.*]] = arith.addi %[[J0]], %[[C0]]
// CHECK: vector.load %arg1[%[[JB]], %[[K0]]] : memref<64x512xf32>, vector<16xf32>
// CHECK-COUNT-15: vector.load %arg1
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31]
// CHECK-COUNT-62: vector.shuffle
// CHECK-COUNT-16: vector.store %{{.*}}, %[[P]][%{{.*}}, %[[C0]]]
// CHECK-NEXT: } {loop_annotation = #loop_annotation}
// CHECK-NOT: memref.load %arg1
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %[[KC]] to %{{.*}} step %c1 iter_args
// CHECK-COUNT-2: vector.load %[[P]]
// CHECK-NOT: vector.reduction
// AVX2-LABEL: func.func @block_linear
// AVX2: scf.for %{{.*}} step %c8 {
// AVX2-COUNT-8: vector.load %arg1
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11]
#lin2 = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
         affine_map<(i, j, k) -> (i, j)>]
func.func @block_linear(%x: memref<64x512xf32>, %w: memref<64x512xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = #lin2, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<64x512xf32>, memref<64x512xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The same with 100 steps of k (6 squares of 16, then 4 steps element by
// element, in a loop over the 32 columns). 40 columns (a last partial
// tile) keep the dot products. (@block_linear's 512 steps, whole squares
// in blocks of 256, have no element-by-element loop.)

// CHECK-LABEL: func.func @block_linear_edges
// CHECK: %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<100x32xf32>
// CHECK: scf.for %[[J0:.*]] = %c0 to %{{.*}} step %c32
// CHECK: scf.for %[[K0:.*]] = %c0 to %[[SE:.*]] step %c16 {
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK-COUNT-64: vector.shuffle
// CHECK: scf.for %[[K:.*]] = %[[SE]] to %c100 step %c1 {
// CHECK: scf.for %[[T:.*]] = %c0 to %c32 step %c1 {
// CHECK: memref.load %arg1
// CHECK: memref.store %{{.*}}, %[[P]][%{{.*}}, %[[T]]]
// CHECK-NOT: vector.create_mask
// CHECK-NOT: vector.reduction
// CHECK-LABEL: func.func @block_linear_partial
// CHECK-NOT: vector.shuffle
// CHECK: vector.reduction
#lin3 = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
         affine_map<(i, j, k) -> (i, j)>]
func.func @block_linear_edges(%x: memref<64x100xf32>, %w: memref<64x100xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = #lin3, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<64x100xf32>, memref<64x100xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}
func.func @block_linear_partial(%x: memref<64x100xf32>, %w: memref<40x100xf32>, %c: memref<64x40xf32>) {
  linalg.generic {indexing_maps = #lin3, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<64x100xf32>, memref<40x100xf32>) outs(%c : memref<64x40xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Without `reassoc` (tgc-run --strict-reductions) the same block is still
// packed transposed: each sum keeps k's order there.

// CHECK-LABEL: func.func @block_linear_in_order
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<256x32xf32>
// CHECK: vector.shuffle
// CHECK-NOT: vector.reduction
#lin4 = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
         affine_map<(i, j, k) -> (i, j)>]
func.func @block_linear_in_order(%x: memref<64x512xf32>, %w: memref<64x512xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = #lin4, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<64x512xf32>, memref<64x512xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A direct convolution (tgc-to-linalg's direct-convolutions, a tile of
// tgc-form-kernels: one image and output row, 8 output channels): a window
// contraction. Its tiles are 8 output channels (i, which the weight reads
// and the input does not) by two vectors of output columns (j); the
// accumulators are carried through loops over c, kh and kw (in that order:
// the im2col product's order of k), which load two vectors of the input
// row oh * 2 + kh at column ow + kw * 2 and broadcast one weight per
// channel. Output channels left over run one at a time; outer loops (n,
// oh) stay loops.

// CHECK-LABEL: func.func @direct_conv
// CHECK: scf.for %[[N:.*]] = %c0 to %c1 step %c1
// CHECK: scf.for %[[OH:.*]] = %c0 to %c2 step %c1
// CHECK: scf.for %[[O:.*]] = %c0 to %{{.*}} step %c8
// CHECK: scf.for %[[OW:.*]] = %c0 to %{{.*}} step %c32
// CHECK-COUNT-16: vector.load %arg2[{{.*}}] : memref<1x9x2x40xf32>, vector<16xf32>
// CHECK: scf.for %[[C:.*]] = %c0 to %c4 step %c1 iter_args({{.*}}) -> (vector<16xf32>,
// CHECK: scf.for %[[KH:.*]] = %c0 to %c3 step %c1 iter_args(
// CHECK: scf.for %[[KW:.*]] = %c0 to %c3 step %c1 iter_args(
// CHECK: %[[ROW:.*]] = arith.muli %[[OH]], %c2
// CHECK: %[[Y:.*]] = arith.addi %[[ROW]], %[[KH]]
// CHECK: %[[DW:.*]] = arith.muli %[[KW]], %c2
// CHECK: %[[X:.*]] = arith.addi %[[OW]], %[[DW]]
// CHECK: vector.load %arg0[%[[N]], %[[C]], %[[Y]], %[[X]]] : memref<1x4x7x44xf32>, vector<16xf32>
// CHECK: vector.load %arg0
// CHECK: memref.load %arg1[%[[O]], %[[C]], %[[KH]], %[[KW]]]
// CHECK: vector.broadcast
// CHECK-COUNT-2: vector.fma
// CHECK-COUNT-16: vector.store
// Output columns 32 to 39: the masked tile.
// CHECK: vector.create_mask
// The ninth output channel.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c9 step %c1
// CHECK-NOT: linalg.generic
#conv = [affine_map<(n, o, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow + kw * 2)>,
         affine_map<(n, o, oh, ow, c, kh, kw) -> (o, c, kh, kw)>,
         affine_map<(n, o, oh, ow, c, kh, kw) -> (n, o, oh, ow)>]
func.func @direct_conv(%x: memref<1x4x7x44xf32>, %w: memref<9x4x3x3xf32>, %y: memref<1x9x2x40xf32>) {
  linalg.generic {indexing_maps = #conv, iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x4x7x44xf32>, memref<9x4x3x3xf32>) outs(%y : memref<1x9x2x40xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Windows that are left alone: stride 2 along the output's columns (a
// vector would not read consecutive inputs), and a sum over a loop only
// one operand reads.

// CHECK-LABEL: func.func @window_left_alone
// CHECK-NOT: vector.fma
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: vector.fma
#strided = [affine_map<(n, o, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow * 2 + kw)>,
            affine_map<(n, o, oh, ow, c, kh, kw) -> (o, c, kh, kw)>,
            affine_map<(n, o, oh, ow, c, kh, kw) -> (n, o, oh, ow)>]
#unread = [affine_map<(n, o, ow, c, k) -> (n, c, ow)>,
           affine_map<(n, o, ow, c, k) -> (o, c, k)>,
           affine_map<(n, o, ow, c, k) -> (n, o, ow)>]
func.func @window_left_alone(%x: memref<1x4x7x44xf32>, %w: memref<9x4x3x3xf32>, %y: memref<1x9x5x20xf32>,
                             %x1: memref<1x4x40xf32>, %w1: memref<9x4x3xf32>, %y1: memref<1x9x40xf32>) {
  linalg.generic {indexing_maps = #strided, iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x4x7x44xf32>, memref<9x4x3x3xf32>) outs(%y : memref<1x9x5x20xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = #unread, iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x1, %w1 : memref<1x4x40xf32>, memref<9x4x3xf32>) outs(%y1 : memref<1x9x40xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 33 to 64 columns (static) in an iteration of at most 8 rows: tiles of 4
// rows by four vectors (each row of A read once; 8 x 2 tiles read it
// twice), the two row tiles inside the column tile. A block of more rows
// keeps 8 x 2. With 256-bit vectors (16 registers) 64 columns are eight
// vectors: 4 x 2 tiles, as before.

#mm = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
       affine_map<(i, j, k) -> (i, j)>]
// CHECK-LABEL: func.func @four_vectors
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c64
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c4
// CHECK: scf.for %[[K:.*]] = %c0 to %c96 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4: vector.load %arg1[%[[K]], {{.*}}] : memref<96x64xf32>, vector<16xf32>
// CHECK: memref.load %arg0
// CHECK-COUNT-4: vector.fma
// CHECK-LABEL: func.func @sixteen_rows
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c32
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c8
// AVX2-LABEL: func.func @four_vectors
// AVX2: scf.for %{{.*}} = %c0 to %{{.*}} step %c16
// AVX2: scf.for %{{.*}} = %c0 to %{{.*}} step %c4
// AVX2: iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
func.func @four_vectors(%a: memref<8x96xf32>, %b: memref<96x64xf32>, %c: memref<8x64xf32>) {
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x96xf32>, memref<96x64xf32>) outs(%c : memref<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}
func.func @sixteen_rows(%a: memref<16x96xf32>, %b: memref<96x64xf32>, %c: memref<16x64xf32>) {
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x96xf32>, memref<96x64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p fastmath<reassoc,contract> : f32
    linalg.yield %s : f32
  }
  return
}
