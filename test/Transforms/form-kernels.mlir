// RUN: timeout 60 tgc-opt %s --tgc-fuse --tgc-to-linalg --tgc-form-kernels --canonicalize --cse -split-input-file | FileCheck %s

// The entropy scorer -(softmax(x) * log(softmax(x))).sum(1) is one fusion
// group of kind "rows": one scf.forall over the rows, each iteration
// computing the row's max, sum, normalized values, log, product and sum
// over 1x128 slices. The fills of the reductions' accumulators move into
// the loop, so nothing runs over the whole tensor outside it.

// CHECK-LABEL: func.func @entropy
// CHECK-NOT: linalg.generic
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) in (%{{.*}}) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<?xf32>)
// CHECK: tensor.extract_slice %arg0[%[[I]], 0] [1, 128] [1, 1] : tensor<?x128xf32> to tensor<1x128xf32>
// CHECK-COUNT-3: iterator_types = ["parallel", "reduction"]
// CHECK: tensor.parallel_insert_slice
// CHECK: } {tgc.group = 0 : i64}
// CHECK-NEXT: return %[[R]]
func.func @entropy(%x: tensor<?x128xf32>) -> tensor<?xf32> {
  %p = tgc.softmax %x dim = 1 : tensor<?x128xf32>
  %l = tgc.log %p : tensor<?x128xf32>
  %m = tgc.mul %p, %l : tensor<?x128xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
  %s = tgc.sum %m dims [1] : tensor<?x128xf32> -> tensor<?xf32>
  %n = tgc.neg %s : tensor<?xf32>
  return %n : tensor<?xf32>
}

// -----

// A linear layer with its GELU epilogue: one loop over tiles of 8 rows
// (contraction-rows: a register tile of tgc-vectorize-contractions); the
// zero fill of the accumulator is done per tile inside the loop (the
// loop's shared output starts as the empty tensor, not as a filled one),
// in a temporary of the full tile's static size, sliced to the last
// tile's rows (so that it goes on the stack). The epilogue's destination
// stays an empty tensor, which empty-tensor elimination turns into the
// loop output's slice (a stack buffer there would be copied out).

// CHECK-LABEL: func.func @linear_gelu
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) {{.*}}: tensor<?x128xf32>
// CHECK-NOT: linalg.generic
// CHECK: scf.forall (%[[I:.*]]) = (0) to (%{{.*}}) step (8) shared_outs(%{{.*}} = %[[E]])
// CHECK: %[[N:.*]] = affine.min
// CHECK: %[[T:.*]] = bufferization.alloc_tensor() : tensor<8x128xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[T]][0, 0] [%[[N]], 128] [1, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%[[S]] : tensor<?x128xf32>)
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[OUT:.*]] = tensor.empty(%[[N]]) : tensor<?x128xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[OUT]] : tensor<?x128xf32>)
// CHECK: tensor.parallel_insert_slice %[[R]]
// CHECK: } {tgc.group = 0 : i64}
func.func @linear_gelu(%x: tensor<?x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> tensor<?x128xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %a = tgc.gelu %h : tensor<?x128xf32>
  return %a : tensor<?x128xf32>
}

// -----

// A linear layer alone (one op: a group of kind "single") whose bias is
// the root: still 8 rows per iteration, the product fused in (one row per
// iteration read all of W for each row).

// CHECK-LABEL: func.func @linear_alone
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (8)
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: } {tgc.group = 0 : i64}
func.func @linear_alone(%x: tensor<64x32xf32>, %w: tensor<48x32xf32>, %b: tensor<48xf32>) -> tensor<64x48xf32> {
  %h = tgc.linear %x, %w, %b : tensor<64x32xf32>, tensor<48x32xf32>, tensor<48xf32> -> tensor<64x48xf32>
  return %h : tensor<64x48xf32>
}

// -----

// A 1-D elementwise chain is tiled in chunks of 4096 elements.

// CHECK-LABEL: func.func @chain
// CHECK: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (4096)
// CHECK: } {tgc.group = 0 : i64}
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = tgc.exp %x : tensor<?xf32>
  %b = tgc.tanh %a : tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// A loop over a static size 0 (a sum over an empty dim) is neither tiled
// nor fused into its consumer's loop: upstream's tiling divides by such
// extents (this crashed the pass). It stays a loop nest of its own whose
// reduction loop runs zero times, leaving the accumulator's fill, 0; the
// consumer (the f64 accumulator's conversion to f32) is tiled as usual.
// CHECK-LABEL: func.func @empty_reduction
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<0x4xf32>)
// CHECK:       math.exp
// CHECK:       scf.forall
// CHECK:       tensor.extract_slice %[[SUM]]
// CHECK:       } {tgc.group = 0 : i64}
func.func @empty_reduction(%x: tensor<0x4xf32>) -> tensor<4xf32> {
  %e = tgc.exp %x : tensor<0x4xf32>
  %s = tgc.sum %e dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// An im2col convolution: its padded input, windows, product and bias are
// one group, but reshapes (the windows collapsed into a matrix, the
// product expanded back) stand between them, across which tile-and-fuse
// cannot fuse: each op before a reshape is a root of its own parallel loop
// (they were one serial loop nest). The pad is an elementwise generic over
// the padded shape that reads the input at the clamped position
// (tgc.own_kernel: never fused into the windows' loop, where it was an
// scf.if and a copy of a dynamic window per tile). The product's loop
// takes 5 of the 10 output channels per iteration (contraction-rows,
// halved to keep two iterations).

// CHECK-LABEL: func.func @conv_im2col
// CHECK: scf.forall {{.*}} -> (tensor<3x5x13x15xf32>)
// CHECK: linalg.generic {{.*}} tgc.own_kernel
// CHECK: tensor.extract %arg0
// CHECK: arith.select
// CHECK: scf.forall {{.*}} -> (tensor<3x5x3x3x6x13xf32>)
// CHECK: tensor.collapse_shape
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (3, 10) step (1, 5) {{.*}} -> (tensor<3x10x78xf32>)
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: tensor.expand_shape
// CHECK: scf.forall {{.*}} -> (tensor<3x10x6x13xf32>)
func.func @conv_im2col(%x: tensor<3x5x11x13xf32>, %w: tensor<10x5x3x3xf32>, %b: tensor<10xf32>) -> tensor<3x10x6x13xf32> {
  %0 = tgc.conv2d %x, %w bias(%b : tensor<10xf32>) stride [2, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<3x5x11x13xf32>, tensor<10x5x3x3xf32> -> tensor<3x10x6x13xf32>
  return %0 : tensor<3x10x6x13xf32>
}

// -----

// A pad whose padded dims may be 0 at run time (dynamic): no position of
// the source is in bounds then, so the kernel reads the source only
// inside (an scf.if), where a static source reads the clamped position and
// selects (above).

// CHECK-LABEL: func.func @pad_dynamic
// CHECK: linalg.generic {{.*}} tgc.own_kernel
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: tensor.extract %arg0
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : f32
func.func @pad_dynamic(%x: tensor<2x?x?xf32>) -> tensor<2x?x?xf32> {
  %0 = tgc.pad %x low [0, 1, 2] high [0, 1, 0] value -2.5 : f32 : tensor<2x?x?xf32> -> tensor<2x?x?xf32>
  return %0 : tensor<2x?x?xf32>
}

// -----

// A large product (at least 128 rows and 512 columns, static): 2-D blocks
// of 64 rows x 256 columns per iteration instead of 8 rows x all columns,
// so that each iteration reads a block of B, not all of it. With at least
// 256 rows and twice as many columns: 128 x 128 (B's panels packed half as
// often); a square product keeps 64 x 256.

// CHECK-LABEL: func.func @large_product
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (200, 1024) step (64, 256)
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-LABEL: func.func @tall_blocks
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (256, 1024) step (128, 128)
// CHECK-LABEL: func.func @square_product
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (512, 512) step (64, 256)
func.func @large_product(%a: tensor<200x300xf32>, %b: tensor<300x1024xf32>) -> tensor<200x1024xf32> {
  %0 = tgc.matmul %a, %b : tensor<200x300xf32>, tensor<300x1024xf32> -> tensor<200x1024xf32>
  return %0 : tensor<200x1024xf32>
}
func.func @tall_blocks(%a: tensor<256x300xf32>, %b: tensor<300x1024xf32>) -> tensor<256x1024xf32> {
  %0 = tgc.matmul %a, %b : tensor<256x300xf32>, tensor<300x1024xf32> -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}
func.func @square_product(%a: tensor<512x300xf32>, %b: tensor<300x512xf32>) -> tensor<512x512xf32> {
  %0 = tgc.matmul %a, %b : tensor<512x300xf32>, tensor<300x512xf32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

// Many rows, few columns (128 to 511), B read along its columns (an im2col
// convolution's product over small images): blocks of 64 rows x 64
// columns, each packing B's panel once for its row tiles.

// CHECK-LABEL: func.func @narrow_product
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (256, 196) step (64, 64)
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
func.func @narrow_product(%a: tensor<256x2304xf32>, %b: tensor<2304x196xf32>) -> tensor<256x196xf32> {
  %0 = tgc.matmul %a, %b : tensor<256x2304xf32>, tensor<2304x196xf32> -> tensor<256x196xf32>
  return %0 : tensor<256x196xf32>
}

// -----

// The same sizes read along k (`x W^T`, a linear layer's product) and
// fewer than 128 columns keep 8 rows per iteration.

// CHECK-LABEL: func.func @narrow_linear
// CHECK: scf.forall (%{{.*}}) = (0) to (256) step (8)
// CHECK-LABEL: func.func @thin_product
// CHECK: scf.forall (%{{.*}}) = (0) to (512) step (8)
func.func @narrow_linear(%x: tensor<256x2304xf32>, %w: tensor<196x2304xf32>) -> tensor<256x196xf32> {
  %0 = tgc.linear %x, %w : tensor<256x2304xf32>, tensor<196x2304xf32> -> tensor<256x196xf32>
  return %0 : tensor<256x196xf32>
}
func.func @thin_product(%a: tensor<512x4608xf32>, %b: tensor<4608x64xf32>) -> tensor<512x64xf32> {
  %0 = tgc.matmul %a, %b : tensor<512x4608xf32>, tensor<4608x64xf32> -> tensor<512x64xf32>
  return %0 : tensor<512x64xf32>
}

// -----

// Elementwise roots whose iterations would hold few elements (every dim
// but the innermost tiled by 1: 7 here) take whole inner dims until an
// iteration has at least 512 elements, keeping 64 iterations or more:
// [4, 256, 7, 7] in 1024 iterations of 49. [8, 16, 7] keeps its 128
// iterations of 7 (16 would leave 8); [64, 1024] its rows.

// CHECK-LABEL: func.func @small_iterations
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (4, 256)
// CHECK: -> tensor<1x1x7x7xf32>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (8, 16)
// CHECK: -> tensor<1x1x7xf32>
// CHECK: scf.forall (%{{.*}}) in (64)
// A softmax over rows of 7 keeps a row per iteration (a reduction among
// the root's producers).
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (64, 32)
func.func @small_iterations(%x: tensor<4x256x7x7xf32>, %y: tensor<8x16x7xf32>, %z: tensor<64x1024xf32>,
                            %s: tensor<64x32x7xf32>)
    -> (tensor<4x256x7x7xf32>, tensor<8x16x7xf32>, tensor<64x1024xf32>, tensor<64x32x7xf32>) {
  %0 = tgc.relu %x : tensor<4x256x7x7xf32>
  %1 = tgc.relu %y : tensor<8x16x7xf32>
  %2 = tgc.relu %z : tensor<64x1024xf32>
  %3 = tgc.softmax %s dim = 2 : tensor<64x32x7xf32>
  return %0, %1, %2, %3 : tensor<4x256x7x7xf32>, tensor<8x16x7xf32>, tensor<64x1024xf32>, tensor<64x32x7xf32>
}

// -----

// Softmax then layer norm over the same rows (one group): tile-and-fuse
// clones the softmax's row into each pass of the layer norm (mean,
// variance, output); the clones are merged before elementwise fusion, so
// the row is computed once into a 1x1024 temporary that the three passes
// read. Two exps per element: the softmax's sum and its row (four when
// every pass recomputed the row).

// CHECK-LABEL: func.func @softmax_layer_norm
// CHECK: scf.forall
// CHECK-COUNT-2: math.exp
// CHECK-NOT: math.exp
// CHECK: -> tensor<1x1024xf32>
// CHECK-NOT: math.exp
// CHECK: scf.forall.in_parallel
func.func @softmax_layer_norm(%x: tensor<?x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x1024xf32>
  %n = tgc.layer_norm %s weight(%w : tensor<1024xf32>) bias(%b : tensor<1024xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x1024xf32>
  return %n : tensor<?x1024xf32>
}

// -----

// A cheap producer read by several passes (the residual add before a
// layer norm) is not kept in a row temporary: each pass adds again, which
// costs less than the temporary's stores and loads.

// CHECK-LABEL: func.func @residual_layer_norm
// CHECK: scf.forall
// CHECK-NOT: -> tensor<1x1024xf32>
// CHECK-COUNT-3: arith.addf %in, %in_{{[0-9]+}} : f32
// CHECK: scf.forall.in_parallel
func.func @residual_layer_norm(%x: tensor<?x1024xf32>, %y: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %s = tgc.add %x, %y : tensor<?x1024xf32>, tensor<?x1024xf32> -> tensor<?x1024xf32>
  %n = tgc.layer_norm %s normalized_rank = 1 eps = 1.0e-05 : tensor<?x1024xf32>
  return %n : tensor<?x1024xf32>
}

// -----

// A causal mask built from the iteration's indices is kept in a temporary
// that the softmax's max and sum both read: fused into each reduction, its
// compare and select kept LLVM from vectorizing them (8.2 -> 14 ms on a
// 4x8x256x64 attention).

// CHECK-LABEL: func.func @causal_attention
// CHECK: scf.forall
// CHECK: %[[MASKED:.*]] = linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<1x1x?x?xf32>)
// CHECK: linalg.index
// CHECK: arith.select
// CHECK: linalg.generic {{.*}}"reduction"]} ins(%[[MASKED]] : tensor<1x1x?x?xf32>)
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}"reduction"]} ins(%[[MASKED]], %{{.*}} : tensor<1x1x?x?xf32>, tensor<1x1x?xf32>)
// CHECK: math.exp
func.func @causal_attention(%q: tensor<2x4x?x16xf32>, %k: tensor<2x4x?x16xf32>, %v: tensor<2x4x?x16xf32>) -> tensor<2x4x?x16xf32> {
  %o = tgc.scaled_dot_product_attention %q, %k, %v causal : tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32>, tensor<2x4x?x16xf32> -> tensor<2x4x?x16xf32>
  return %o : tensor<2x4x?x16xf32>
}

// -----

// A chain whose every value is read twice by the next step (a max pool
// with indices walking its window: v' = where(x > v, x, v)) has 2^depth
// paths from the result down to its first op, and tile-and-fuse clones a
// producer once per path: a 4x4 window never finished compiling. An op
// that would be cloned more than 64 times is a kernel of its own instead:
// here the neg and the first three steps are one kernel, whose result the
// other seven steps read.

// CHECK-LABEL: func.func @doubling_chain
// CHECK: %[[FIRST:.*]] = linalg.generic
// CHECK: arith.negf
// CHECK-COUNT-3: arith.select
// CHECK: linalg.yield
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[FIRST]] : tensor<64xf32>, tensor<64xf32>)
// CHECK-COUNT-7: arith.select
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @doubling_chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %v0 = tgc.neg %x : tensor<64xf32>
  %c0 = tgc.cmp gt, %x, %v0 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v1 = tgc.where %c0, %x, %v0 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c1 = tgc.cmp gt, %x, %v1 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v2 = tgc.where %c1, %x, %v1 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c2 = tgc.cmp gt, %x, %v2 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v3 = tgc.where %c2, %x, %v2 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c3 = tgc.cmp gt, %x, %v3 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v4 = tgc.where %c3, %x, %v3 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c4 = tgc.cmp gt, %x, %v4 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v5 = tgc.where %c4, %x, %v4 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c5 = tgc.cmp gt, %x, %v5 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v6 = tgc.where %c5, %x, %v5 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c6 = tgc.cmp gt, %x, %v6 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v7 = tgc.where %c6, %x, %v6 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c7 = tgc.cmp gt, %x, %v7 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v8 = tgc.where %c7, %x, %v7 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c8 = tgc.cmp gt, %x, %v8 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v9 = tgc.where %c8, %x, %v8 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %c9 = tgc.cmp gt, %x, %v9 : tensor<64xf32>, tensor<64xf32> -> tensor<64xi1>
  %v10 = tgc.where %c9, %x, %v9 : tensor<64xi1>, tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return %v10 : tensor<64xf32>
}

// -----

// A chain of diamonds (x = exp(x) + sin(x), each value read twice by the
// next link) is cut into kernels of at most seven links, as above. The
// later kernels read an earlier one's loop, which carries the group too:
// tile-and-fuse cloned that whole loop into the reader's iteration once
// per path down to it, and 16 links compiled for 13 s (20 links: minutes).
// CSE and elementwise fusion folded the copies away, so the output below
// was the same: the timeout above is what fails when they come back. Each
// kernel is one loop, none nested in another.

// CHECK-LABEL: func.func @diamond_chain
// CHECK: %[[K1:.*]] = scf.forall
// CHECK-NOT: scf.forall
// CHECK-COUNT-6: math.exp
// CHECK-NOT: math.exp
// CHECK: scf.forall.in_parallel
// CHECK: %[[K2:.*]] = scf.forall {{.*}} {
// CHECK-NOT: scf.forall
// CHECK: tensor.extract_slice %[[K1]]
// CHECK-NOT: scf.forall
// CHECK-COUNT-7: math.exp
// CHECK-NOT: math.exp
// CHECK: scf.forall.in_parallel
// CHECK: %[[K3:.*]] = scf.forall {{.*}} {
// CHECK-NOT: scf.forall
// CHECK: tensor.extract_slice %[[K2]]
// CHECK-NOT: scf.forall
// CHECK-COUNT-7: math.exp
// CHECK-NOT: math.exp
// CHECK: return %[[K3]]
func.func @diamond_chain(%x: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a0 = tgc.exp %x : tensor<64x8xf32>
  %b0 = tgc.sin %x : tensor<64x8xf32>
  %p0 = tgc.add %a0, %b0 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a1 = tgc.exp %p0 : tensor<64x8xf32>
  %b1 = tgc.sin %p0 : tensor<64x8xf32>
  %p1 = tgc.add %a1, %b1 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a2 = tgc.exp %p1 : tensor<64x8xf32>
  %b2 = tgc.sin %p1 : tensor<64x8xf32>
  %p2 = tgc.add %a2, %b2 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a3 = tgc.exp %p2 : tensor<64x8xf32>
  %b3 = tgc.sin %p2 : tensor<64x8xf32>
  %p3 = tgc.add %a3, %b3 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a4 = tgc.exp %p3 : tensor<64x8xf32>
  %b4 = tgc.sin %p3 : tensor<64x8xf32>
  %p4 = tgc.add %a4, %b4 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a5 = tgc.exp %p4 : tensor<64x8xf32>
  %b5 = tgc.sin %p4 : tensor<64x8xf32>
  %p5 = tgc.add %a5, %b5 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a6 = tgc.exp %p5 : tensor<64x8xf32>
  %b6 = tgc.sin %p5 : tensor<64x8xf32>
  %p6 = tgc.add %a6, %b6 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a7 = tgc.exp %p6 : tensor<64x8xf32>
  %b7 = tgc.sin %p6 : tensor<64x8xf32>
  %p7 = tgc.add %a7, %b7 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a8 = tgc.exp %p7 : tensor<64x8xf32>
  %b8 = tgc.sin %p7 : tensor<64x8xf32>
  %p8 = tgc.add %a8, %b8 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a9 = tgc.exp %p8 : tensor<64x8xf32>
  %b9 = tgc.sin %p8 : tensor<64x8xf32>
  %p9 = tgc.add %a9, %b9 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a10 = tgc.exp %p9 : tensor<64x8xf32>
  %b10 = tgc.sin %p9 : tensor<64x8xf32>
  %p10 = tgc.add %a10, %b10 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a11 = tgc.exp %p10 : tensor<64x8xf32>
  %b11 = tgc.sin %p10 : tensor<64x8xf32>
  %p11 = tgc.add %a11, %b11 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a12 = tgc.exp %p11 : tensor<64x8xf32>
  %b12 = tgc.sin %p11 : tensor<64x8xf32>
  %p12 = tgc.add %a12, %b12 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a13 = tgc.exp %p12 : tensor<64x8xf32>
  %b13 = tgc.sin %p12 : tensor<64x8xf32>
  %p13 = tgc.add %a13, %b13 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a14 = tgc.exp %p13 : tensor<64x8xf32>
  %b14 = tgc.sin %p13 : tensor<64x8xf32>
  %p14 = tgc.add %a14, %b14 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a15 = tgc.exp %p14 : tensor<64x8xf32>
  %b15 = tgc.sin %p14 : tensor<64x8xf32>
  %p15 = tgc.add %a15, %b15 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a16 = tgc.exp %p15 : tensor<64x8xf32>
  %b16 = tgc.sin %p15 : tensor<64x8xf32>
  %p16 = tgc.add %a16, %b16 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a17 = tgc.exp %p16 : tensor<64x8xf32>
  %b17 = tgc.sin %p16 : tensor<64x8xf32>
  %p17 = tgc.add %a17, %b17 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a18 = tgc.exp %p17 : tensor<64x8xf32>
  %b18 = tgc.sin %p17 : tensor<64x8xf32>
  %p18 = tgc.add %a18, %b18 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  %a19 = tgc.exp %p18 : tensor<64x8xf32>
  %b19 = tgc.sin %p18 : tensor<64x8xf32>
  %p19 = tgc.add %a19, %b19 : tensor<64x8xf32>, tensor<64x8xf32> -> tensor<64x8xf32>
  return %p19 : tensor<64x8xf32>
}
