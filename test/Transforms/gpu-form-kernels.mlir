// RUN: tgc-opt %s --tgc-gpu-pipeline="lower-kernels=0" -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-gpu-pipeline="lower-kernels=0 block-size=128" -split-input-file | FileCheck %s --check-prefix=B128
// RUN: tgc-opt %s --tgc-gpu-pipeline="lower-kernels=0 gemm-epilogues=0" -split-input-file | FileCheck %s --check-prefix=NOEPI
// RUN: tgc-opt %s --tgc-gpu-pipeline="lower-kernels=0 hoist-checks=0" -split-input-file | FileCheck %s --check-prefix=NOHOIST
// RUN: tgc-opt %s --tgc-gpu-pipeline="lower-kernels=0 exact-division=1" -split-input-file | FileCheck %s --check-prefix=EXACT
// RUN: not tgc-opt %s --tgc-gpu-pipeline="lower-kernels=0 block-size=100" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// (tgc-gpu-form-kernels runs on bufferized IR; the GPU pipeline without
// the NVVM lowering shows its output.)

// An elementwise group over contiguous buffers of one shape: one
// grid-stride kernel over chunks of 4 f32 (16-byte vector accesses; the
// body runs once per lane), then the remainder element by element. The
// grid is max(min(ceildiv(rows * cols, 256 * 4), 16896), 1); sizes are
// operands; the launch asks for aligned argument buffers. Each operand's
// access is recorded for reports: the sizes are not buffers, x and y are
// read, the result written.

// CHECK-LABEL: func.func @pointwise
// CHECK:   %[[N:.*]] = arith.muli %[[D0:.*]], %[[D1:.*]] : index
// CHECK:   %[[B:.*]] = arith.ceildivsi %[[N]], %c1024
// CHECK:   %[[M:.*]] = arith.minsi %[[B]], %c16896
// CHECK:   %[[G:.*]] = arith.maxsi %[[M]], %c1
// CHECK:   gpu.launch_func  @pointwise_kernels::@pointwise_elementwise_0 blocks in (%[[G]], %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-SAME: {tgc_gpu.operand_access = array<i32: 0, 0, 1, 1, 2>, tgc_gpu.vector_align = 16 : i64}
// CHECK: gpu.module @pointwise_kernels
// CHECK:   gpu.func @pointwise_elementwise_0
// CHECK-SAME: kernel
// CHECK:     memref.collapse_shape
// CHECK:     gpu.block_id  x
// CHECK:     gpu.grid_dim  x
// CHECK:     scf.for
// CHECK:       vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK-COUNT-4: arith.addf
// CHECK:       vector.from_elements
// CHECK:       vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK:     scf.for
// CHECK:       memref.load
// CHECK:       arith.addf
// CHECK:       memref.store
// B128-LABEL: func.func @pointwise
// B128: threads in (%c128, %c1, %c1)
// BAD: block-size must be a multiple of 32 in [32, 1024], got 100
func.func @pointwise(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = tgc.add %x, %y : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %r = tgc.relu %a : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A light body takes four chunks per thread and iteration (their loads in
// flight before the stores), then the chunks left one by one; a body with
// a transcendental function (a libdevice call per lane) takes one.

// CHECK-LABEL: gpu.func @light_elementwise_0
// CHECK:       scf.for
// CHECK-COUNT-4: vector.load
// CHECK-COUNT-4: vector.store
// CHECK:       scf.for
// CHECK:       vector.load
// CHECK:       vector.store
// CHECK:       scf.for
// CHECK:       memref.load
func.func @light(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tgc.relu %x : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: gpu.func @heavy_elementwise_0
// CHECK:       scf.for
// CHECK:       vector.load
// CHECK-COUNT-4: math.erf
// CHECK-NEXT:  vector.from_elements
// CHECK-NEXT:  vector.store
// CHECK-NOT:   vector.load
// CHECK:       scf.for
// CHECK:       memref.load
// CHECK-NEXT:  math.erf
func.func @heavy(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tgc.erf %x : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// With a broadcast operand: one thread per element, indices recovered
// from the linear index, no vector accesses.

// CHECK-LABEL: func.func @broadcast
// CHECK:   gpu.launch_func  @broadcast_kernels::@broadcast_elementwise_0
// CHECK-NOT: tgc_gpu.vector_align
// CHECK:   gpu.func @broadcast_elementwise_0
// CHECK:     scf.for
// CHECK:       arith.remui
// CHECK:       arith.divui
// CHECK:       memref.load
// CHECK:       arith.addf
// CHECK:       memref.store
func.func @broadcast(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %a = tgc.add %x, %b : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}

// -----

// A row group (softmax): one block of 128 threads (row-block-size) per
// row; each reduction is a strided loop, a butterfly of shuffles, one slot
// per warp in workgroup memory and a second butterfly; stages are
// separated by barriers, except after the last.

// CHECK-LABEL: func.func @softmax
// CHECK:   gpu.launch_func  @softmax_kernels::@softmax_rows_0 blocks in (%{{.*}}, %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK:   gpu.func @softmax_rows_0
// CHECK-SAME: workgroup(%{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK:     gpu.block_id  x
// CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 iter_args
// CHECK:       arith.maximumf
// CHECK:     gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:     gpu.barrier
// CHECK:     gpu.shuffle  xor
// CHECK:     gpu.barrier
// CHECK:     scf.for %{{.*}} iter_args(%{{.*}}) -> (f32)
// CHECK:       math.exp
// CHECK:       arith.addf
// CHECK:     gpu.shuffle  xor
// CHECK:     gpu.barrier
// CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 {
// CHECK:       arith.divf
// CHECK:       memref.store
// CHECK-NOT: gpu.barrier
// CHECK:     gpu.return
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// A linear layer: the contraction is tagged for cuBLASLt (B transposed)
// and stays on the host; its zero fill is gone; the bias add is its
// cuBLASLt epilogue (no kernel; the add stays for the launch plan to read
// the bias and output buffers). With gemm-epilogues=0 it is a kernel.

// CHECK-LABEL: func.func @linear
// CHECK-NOT: gpu.launch_func
// CHECK:   linalg.generic
// CHECK-SAME: tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true, epilogue = bias>
// CHECK:   linalg.generic
// CHECK-SAME: ins(%{{.*}}, %arg2 : memref<?x32xf32>, memref<32xf32>)
// CHECK-SAME: tgc_gpu.gemm_epilogue_of
// CHECK-NOT: gpu.launch_func
// NOEPI-LABEL: func.func @linear
// NOEPI-NOT: epilogue
// NOEPI:   gpu.launch_func  @linear_kernels::@linear_elementwise_0
func.func @linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<?x32xf32>
  return %h : tensor<?x32xf32>
}

// -----

// Attention's scores: a matmul with two batch dims whose left operand is a
// slice of a packed projection (`qkv[0]`, a dense view at an offset) is one
// strided-batched GEMM; no contraction kernel.

// CHECK-LABEL: func.func @batched_slices
// CHECK:   linalg.generic
// CHECK-SAME: tgc_gpu.gemm = #tgc_gpu.gemm<batch = [0, 1], m = [2], n = 3, k = 4, trans_a = false, trans_b = false>
// CHECK-NOT: tgc_gpu.gemm
// CHECK-NOT: warp_rows
func.func @batched_slices(%qkv: tensor<3x?x4x?x32xf32>, %kt: tensor<?x4x32x?xf32>) -> tensor<?x4x?x?xf32> {
  %e = tgc.exp %qkv : tensor<3x?x4x?x32xf32>
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %q1 = tgc.slice %e dim = 0 start = 1 end = 2 step = 1 : tensor<3x?x4x?x32xf32> -> tensor<1x?x4x?x32xf32>
  %b = tensor.dim %q1, %c1 : tensor<1x?x4x?x32xf32>
  %s = tensor.dim %q1, %c3 : tensor<1x?x4x?x32xf32>
  %q = tgc.reshape %q1 [%b, %s] : tensor<1x?x4x?x32xf32> -> tensor<?x4x?x32xf32>
  %r = tgc.matmul %q, %kt : tensor<?x4x?x32xf32>, tensor<?x4x32x?xf32> -> tensor<?x4x?x?xf32>
  return %r : tensor<?x4x?x?xf32>
}

// -----

// A pointwise convolution after tgc-decompose: the weight [O, C] has no
// batch dim, so the loop that leads the input and the result is the batch
// (the weight broadcast over it), not a second N dim.

// CHECK-LABEL: func.func @broadcast_weight
// CHECK:   linalg.generic
// CHECK-SAME: tgc_gpu.gemm = #tgc_gpu.gemm<batch = [0], m = [1], n = 2, k = 3, trans_a = false, trans_b = false>
func.func @broadcast_weight(%w: tensor<16x8xf32>, %x: tensor<?x8x36xf32>) -> tensor<?x16x36xf32> {
  %y = tgc.matmul %w, %x : tensor<16x8xf32>, tensor<?x8x36xf32> -> tensor<?x16x36xf32>
  return %y : tensor<?x16x36xf32>
}

// -----

// A column sum: a two-stage tree with threads along the columns. The fill
// of the f64 accumulator is not launched (the final stage starts from its
// value) and the rounding to f32 runs in the final stage. Chunks per
// output: enough threads, at most 262144 partials, at least 8 rows per
// chunk and at most 256 chunks. The first stage finishes the outputs when
// each has one chunk; else it writes partials to the scratch region at the
// end of the arena (arena bytes rounded to 64, plus 262144 * 8), and the
// final stage (grid multiplied by min(chunks - 1, 1), so 0 blocks when not
// needed) combines them: blocks of 1024 threads, 32 outputs each, each
// warp combining every 32nd chunk, then the first warp the warps' results.

// CHECK-LABEL: func.func @column_sum
// CHECK:   %[[OLD:.*]] = arith.muli %{{.*}}, %c64 : index
// CHECK:   %[[NEW:.*]] = arith.addi %[[OLD]], %c2097152 : index
// CHECK:   %[[ARENA:.*]] = memref.alloc(%[[NEW]]) {alignment = 64 : i64} : memref<?xi8>
// CHECK:   %[[PARTIALS:.*]] = memref.view %[[ARENA]][%[[OLD]]][] : memref<?xi8> to memref<262144xf64>
// CHECK-NOT: gpu.launch_func
// CHECK:   %[[P:.*]] = arith.maxsi %[[COLS:.*]], %c1 : index
// CHECK:   arith.ceildivsi %c262144, %[[P]]
// CHECK:   arith.divsi %c262144, %[[P]]
// CHECK:   arith.ceildivsi %{{.*}}, %c8
// CHECK:   arith.minsi %{{.*}}, %c256
// CHECK:   %[[S:.*]] = arith.maxsi %{{.*}}, %c1 : index
// CHECK:   %[[T:.*]] = arith.muli %[[COLS]], %[[S]] : index
// CHECK:   %[[G:.*]] = arith.ceildivsi %[[T]], %c256 : index
// CHECK:   gpu.launch_func @column_sum_kernels::@column_sum_tree_0 blocks in (%[[G]], %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK:   %[[S1:.*]] = arith.subi %[[S]], %c1 : index
// CHECK:   %[[SEVERAL:.*]] = arith.minsi %[[S1]], %c1 : index
// CHECK:   %[[B:.*]] = arith.ceildivsi %[[COLS]], %c32 : index
// CHECK:   %[[G2:.*]] = arith.muli %[[B]], %[[SEVERAL]] : index
// CHECK:   gpu.launch_func @column_sum_kernels::@column_sum_tree_final_1 blocks in (%[[G2]], %c1, %c1) threads in (%c1024, %c1, %c1)
// CHECK-NOT: gpu.launch_func
// CHECK:   gpu.func @column_sum_tree_0(%{{.*}}: index, %[[N:.*]]: index, %[[SPLIT:.*]]: index, %[[X:.*]]: memref<?x?xf32>, %[[ACC:.*]]: memref<?xf64>, %[[PART:.*]]: memref<262144xf64>, %[[OUT:.*]]: memref<?xf32>) kernel
// CHECK:     %[[DIRECT:.*]] = arith.cmpi eq, %[[SPLIT]], %c1 : index
// CHECK:     %[[COL:.*]] = arith.remui %[[W:.*]], %[[N]] : index
// CHECK:     scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c8 iter_args
// CHECK:       memref.load %[[X]][%[[K]], %[[COL]]]
// CHECK-COUNT-7: memref.load %[[X]]
// CHECK:     scf.for %{{.*}} step %c1 iter_args
// CHECK:     scf.if %[[DIRECT]] {
// CHECK:       memref.store %{{.*}}, %[[ACC]][%[[COL]]]
// CHECK:       arith.truncf %{{.*}} : f64 to f32
// CHECK:       memref.store %{{.*}}, %[[OUT]][%[[COL]]]
// CHECK:     } else {
// CHECK:       memref.store %{{.*}}, %[[PART]][%[[W]]]
// CHECK:   gpu.func @column_sum_tree_final_1(
// CHECK-SAME: workgroup(%[[SHARED:.*]] : memref<1024xf64, #gpu.address_space<workgroup>>)
// CHECK:     scf.for %{{.*}} step %c256 iter_args
// CHECK:       memref.load %{{.*}} : memref<262144xf64>
// CHECK:     memref.store %{{.*}}, %[[SHARED]]
// CHECK:     gpu.barrier
// CHECK:     scf.for %{{.*}} step %c32 iter_args
// CHECK:       memref.load %[[SHARED]]
// CHECK:     arith.truncf %{{.*}} : f64 to f32
func.func @column_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = tgc.sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// A full sum: a tree with a warp per chunk, its lanes along the reduction
// (the input read through a 1-D view, no index division), 8 reads per
// lane per step: 16-byte vectors when the length is a multiple of 4 (the
// launch guards the input's alignment), else scalars. The final stage is a
// block of 1024 threads per output. The static arena grows by the scratch
// region after its 64 planned bytes.

// CHECK-LABEL: func.func @full_sum
// CHECK:   %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2097216xi8>
// CHECK:   memref.view %[[ARENA]][%c64][] : memref<2097216xi8> to memref<262144xf64>
// CHECK:   arith.ceildivsi %{{.*}}, %c256 : index
// CHECK:   arith.minsi %{{.*}}, %c8192 : index
// CHECK:   gpu.launch_func @full_sum_kernels::@full_sum_tree_0
// CHECK-SAME: tgc_gpu.vector_align = 16 : i64}
// CHECK:   gpu.launch_func @full_sum_kernels::@full_sum_tree_final_1
// CHECK:   gpu.func @full_sum_tree_0(
// CHECK:     %[[REM:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK:     %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %c0 : index
// CHECK:     scf.if %[[ALIGNED]] -> (f64) {
// CHECK:       %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<?x?xf32> into memref<?xf32>
// CHECK:       scf.for %{{.*}} step %c256 iter_args
// CHECK:         vector.load %[[FLAT]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK-COUNT-4: vector.extract
// CHECK:     } else {
// CHECK:       %[[FLAT2:.*]] = memref.collapse_shape
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c256 iter_args
// CHECK:         memref.load %[[FLAT2]][%[[K]]]
// CHECK-NOT:     arith.divui
// CHECK:       scf.for %{{.*}} step %c32 iter_args
// CHECK:     gpu.shuffle  xor
// CHECK:   gpu.func @full_sum_tree_final_1(
// CHECK-SAME: workgroup(%{{.*}} : memref<32xf64, #gpu.address_space<workgroup>>)
// CHECK:     gpu.barrier
func.func @full_sum(%x: tensor<?x?xf32>) -> tensor<f32> {
  %s = tgc.sum %x dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Reductions with two outputs (argmax: value and index) keep a thread per
// output with the reduction loop inside the thread.

// CHECK-LABEL: func.func @column_argmax
// CHECK:   gpu.func @column_argmax_loops_
// CHECK:     scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
func.func @column_argmax(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %a = tgc.argmax %x dim 0 : tensor<?x?xf32> -> tensor<?xi64>
  return %a : tensor<?xi64>
}

// -----

// 1-D vectors: a dynamic or long one as a tree, a static one of up to
// 16384 elements as one block (a row kernel without rows). Without an
// arena, the scratch region is an arena of its own.

// CHECK-LABEL: func.func @vectors
// CHECK:   memref.alloc() {alignment = 64 : i64} : memref<2097152xi8>
// CHECK:   gpu.launch_func @vectors_kernels::@vectors_tree_0
// CHECK:   gpu.launch_func @vectors_kernels::@vectors_tree_final_1
// CHECK:   gpu.launch_func @vectors_kernels::@vectors_rows_2 blocks in (%c1, %c1, %c1)
func.func @vectors(%x: tensor<?xf32>, %y: tensor<1000xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = tgc.amax %x dims [0] : tensor<?xf32> -> tensor<f32>
  %t = tgc.amax %y dims [0] : tensor<1000xf32> -> tensor<f32>
  return %s, %t : tensor<f32>, tensor<f32>
}

// -----

// A row sum of f32 accumulates in f64: its shuffles travel as two 32-bit
// halves.

// CHECK-LABEL: func.func @row_sum
// CHECK:   gpu.func @row_sum_rows_0
// CHECK-SAME: workgroup(%{{.*}} : memref<4xf64, #gpu.address_space<workgroup>>
// CHECK:     scf.for %{{.*}} iter_args(%{{.*}}) -> (f64)
// CHECK:     arith.bitcast %{{.*}} : f64 to i64
// CHECK:     gpu.shuffle  xor %{{.*}} : i32
func.func @row_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = tgc.sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Rows of a static length up to 256 get a warp each: 4 rows per block of
// 128 threads, the grid ceildiv(rows, 4), reductions within the warp (no
// workgroup memory); spare warps of the last block skip the work but reach
// the barriers.

// CHECK-LABEL: func.func @warp_softmax
// CHECK:   %[[R:.*]] = arith.ceildivsi %{{.*}}, %c4
// CHECK:   %[[G:.*]] = arith.maxsi %[[R]], %c1
// CHECK:   gpu.launch_func  @warp_softmax_kernels::@warp_softmax_warp_rows_0 blocks in (%[[G]], %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK:   gpu.func @warp_softmax_warp_rows_0
// CHECK-NOT: workgroup
// CHECK-SAME: kernel
// CHECK:     arith.remui %{{.*}}, %c32
// Rows of a static length keep each thread's elements (here 7 slots of a
// row of 200) in registers: the input is loaded once per slot, guarded by
// the row's end, and the sum and the normalization reuse it.
// CHECK-COUNT-7: memref.load %{{.*}} : memref<?x200xf32>
// CHECK:     gpu.shuffle  xor
// CHECK-NOT: memref.load %{{.*}} : memref<?x200xf32>
// CHECK:     math.exp
// CHECK-NOT: memref.load %{{.*}} : memref<?x200xf32>
// CHECK:     arith.divf
// CHECK-NOT: memref.load %{{.*}} : memref<?x200xf32>
// CHECK:     gpu.return
func.func @warp_softmax(%x: tensor<?x200xf32>) -> tensor<?x200xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x200xf32>
  return %s : tensor<?x200xf32>
}

// -----

// ReLU after a bf16 linear layer: bias, ReLU and the rounding to bf16 are
// one cuBLASLt epilogue (the rounding between the bias and the ReLU
// commutes with it); no kernel at all.

// CHECK-LABEL: func.func @linear_relu_bf16
// CHECK-NOT: gpu.launch_func
// CHECK: epilogue = bias_relu>
// CHECK: tgc_gpu.gemm_epilogue_of
// CHECK-NOT: gpu.launch_func
func.func @linear_relu_bf16(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>, %b: tensor<32xbf16>) -> tensor<?x32xbf16> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xbf16>, tensor<32x64xbf16>, tensor<32xbf16> -> tensor<?x32xbf16>
  %r = tgc.relu %h : tensor<?x32xbf16>
  return %r : tensor<?x32xbf16>
}

// -----

// tanh GELU is cuBLASLt's GELU epilogue; a bf16 matmul without a bias
// writes bf16 directly (epilogue "none": only the rounding).

// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NOT: gpu.launch_func
// CHECK: epilogue = bias_gelu>
// CHECK-LABEL: func.func @matmul_bf16
// CHECK-NOT: gpu.launch_func
// CHECK: epilogue = none>
// CHECK: ins(%{{.*}} : memref<?x32xf32>) outs(%{{.*}} : memref<?x32xbf16>)
// CHECK-SAME: tgc_gpu.gemm_epilogue_of
// CHECK-NOT: gpu.launch_func
func.func @gelu_tanh(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<?x32xf32>
  %r = tgc.gelu %h approximate = "tanh" : tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
func.func @matmul_bf16(%x: tensor<?x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<?x32xbf16> {
  %h = tgc.matmul %x, %w : tensor<?x64xbf16>, tensor<64x32xbf16> -> tensor<?x32xbf16>
  return %h : tensor<?x32xbf16>
}

// -----

// Exact GELU is not cuBLASLt's: the epilogue splits into the bias (with
// the reference's rounding to bf16) for cuBLASLt and the GELU as a kernel
// over the bf16 output in place.

// CHECK-LABEL: func.func @gelu_exact
// CHECK: epilogue = bias>
// CHECK: ins(%{{.*}}, %arg2 : memref<?x48xf32>, memref<48xbf16>) outs(%[[OUT:.*]] : memref<?x48xbf16>)
// CHECK-SAME: tgc_gpu.gemm_epilogue_of
// CHECK: gpu.launch_func  @gelu_exact_kernels::@gelu_exact_elementwise_0
// CHECK-SAME: %[[OUT]]
// CHECK-SAME: {tgc_gpu.operand_access = array<i32: 0, 3>,
// CHECK-LABEL: gpu.func @gelu_exact_elementwise_0
// CHECK: math.erf
func.func @gelu_exact(%x: tensor<?x32xbf16>, %w: tensor<48x32xbf16>, %b: tensor<48xbf16>) -> tensor<?x48xbf16> {
  %h = tgc.linear %x, %w, %b : tensor<?x32xbf16>, tensor<48x32xbf16>, tensor<48xbf16> -> tensor<?x48xbf16>
  %g = tgc.gelu %h : tensor<?x48xbf16>
  return %g : tensor<?x48xbf16>
}

// -----

// The product is also a result: the ReLU reads it, so it is no epilogue.

// CHECK-LABEL: func.func @two_readers
// CHECK-NOT: epilogue
// CHECK: gpu.launch_func
func.func @two_readers(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %h = tgc.matmul %x, %w : tensor<?x64xf32>, tensor<64x32xf32> -> tensor<?x32xf32>
  %r = tgc.relu %h : tensor<?x32xf32>
  return %h, %r : tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// Softmax over static rows: each thread's elements stay in registers, and
// so do the row's max and sum (every thread has a reduction's total); the
// per-row buffers are only stored, by the row's first thread, never read
// back inside the kernel. Rows of 1024 are a multiple of 128 threads times
// 4 floats: each thread loads and stores two 16-byte vectors without
// bounds checks (the block does nothing when there are no rows), the
// launch guards its buffers' alignment, and the only barriers are the two
// block reductions' own (each reduction has its own scratch, and the
// stages after it read its total from registers).

// CHECK-LABEL: func.func @softmax_static
// CHECK: gpu.launch_func  @softmax_static_kernels::@softmax_static_rows_0
// CHECK-SAME: tgc_gpu.vector_align = 16 : i64}
// CHECK-LABEL: gpu.func @softmax_static_rows_0
// CHECK-SAME: workgroup(%{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[ANY:.*]] = arith.cmpi ugt, %{{.*}}, %c0 : index
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[IN:.*]] = arith.cmpi ult, %block_id_x
// CHECK: %[[LANE:.*]] = arith.muli %thread_id_x, %c4 : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[LANE]], %c512 : index
// CHECK-NOT: scf.if {{.*}} -> (f32)
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[LANE]]] {alignment = 16 : i64} : memref<?x1024xf32>, vector<4xf32>
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[NEXT]]] {alignment = 16 : i64} : memref<?x1024xf32>, vector<4xf32>
// CHECK-NOT: memref.load {{.*}} : memref<?xf32>
// CHECK: gpu.barrier
// CHECK-NOT: memref.load {{.*}} : memref<?xf32>
// CHECK: math.exp
// CHECK-NOT: memref.load {{.*}} : memref<?xf32>
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: memref.load {{.*}} : memref<?xf32>
// CHECK: scf.if %[[IN]] {
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[LANE]]] {alignment = 16 : i64} : memref<?x1024xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[NEXT]]] {alignment = 16 : i64} : memref<?x1024xf32>, vector<4xf32>
// CHECK: gpu.return
func.func @softmax_static(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x1024xf32>
  return %s : tensor<?x1024xf32>
}

// -----

// Warp rows of 64 bf16: 64 is a multiple of 32 lanes times 2, so each lane
// reads and writes one 4-byte vector of two; a warp reduces alone, so the
// kernel has no barrier at all.

// CHECK-LABEL: func.func @warp_softmax_bf16
// CHECK: gpu.launch_func  @warp_softmax_bf16_kernels::@warp_softmax_bf16_warp_rows_0
// CHECK-SAME: tgc_gpu.vector_align = 4 : i64}
// CHECK-LABEL: gpu.func @warp_softmax_bf16_warp_rows_0
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<?x64xbf16>, vector<2xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}} {alignment = 4 : i64} : memref<?x64xbf16>, vector<2xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @warp_softmax_bf16(%x: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  %s = tgc.softmax %x dim = 1 : tensor<?x64xbf16>
  return %s : tensor<?x64xbf16>
}

// -----

// Layer norm over rows of 512 f32 (2 KiB): a warp per row, which reads
// the row in 16-byte chunks (4 per lane) without barriers; the weight and
// bias vectors, indexed by the row loop alone, are row-contiguous too and
// read as vectors. Rows of 1024 f32 (4 KiB) keep a block per row.

// CHECK-LABEL: gpu.func @layer_norm_static_warp_rows_0
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-4: vector.load %{{.*}} : memref<?x512xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<512xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}} : memref<?x512xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @layer_norm_static(%x: tensor<?x512xf32>, %w: tensor<512xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = tgc.layer_norm %x weight(%w : tensor<512xf32>) bias(%b : tensor<512xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// -----

// Rows of 1024 bf16 (2 KiB) get a warp each too: 4 chunks of 8 per lane.

// CHECK-LABEL: gpu.func @softmax_bf16_1024_warp_rows_0
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x1024xbf16>, vector<8xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @softmax_bf16_1024(%x: tensor<?x1024xbf16>) -> tensor<?x1024xbf16> {
  %s = tgc.softmax %x dim = 1 : tensor<?x1024xbf16>
  return %s : tensor<?x1024xbf16>
}

// -----

// Dense constants: the global is copied into the kernel module, public (the
// runtime finds it by name) and at least 16-byte aligned; the host keeps
// the get_global, whose buffer kernels and GEMMs receive like any other.

// CHECK-LABEL: func.func @dense_scale
// CHECK:   %[[W:.*]] = memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK:   gpu.launch_func  @dense_scale_kernels::@dense_scale_elementwise_0 {{.*}} args({{.*}}, %[[W]] : memref<4xf32>, {{.*}})
// CHECK-LABEL: func.func @dense_weight
// CHECK:   %[[W:.*]] = memref.get_global @__constant_3x2xf32 : memref<3x2xf32>
// CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : memref<?x3xf32>, memref<3x2xf32>) {{.*}} tgc_gpu.gemm
// A returned constant or argument is returned as a copy in a buffer of
// its own (a copy kernel each).
// CHECK-LABEL: func.func @dense_table
// CHECK:   %[[T:.*]] = memref.get_global @__constant_3xi64 : memref<3xi64>
// CHECK:   %[[R:.*]] = memref.alloc() {alignment = 64 : i64} : memref<3xi64>
// CHECK:   gpu.launch_func  @dense_table_kernels::@dense_table_elementwise_0 {{.*}} args(%[[T]] : memref<3xi64>, %[[R]] : memref<3xi64>)
// CHECK:   return %[[R]] : memref<3xi64>
// CHECK-LABEL: func.func @returns_arg
// CHECK:   gpu.launch_func  @returns_arg_kernels::@returns_arg_elementwise_1 {{.*}} args(%{{.*}} : index, %arg0 : memref<?xf32>, %[[R:[a-z_0-9]+]] : memref<?xf32>)
// CHECK:   return %[[R]], %{{.*}} : memref<?xf32>, memref<?xf32>
// CHECK-LABEL: gpu.module @dense_scale_kernels
// CHECK:   memref.global constant @__constant_4xf32 : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> {alignment = 64 : i64}
// CHECK-LABEL: gpu.module @dense_weight_kernels
// CHECK:   memref.global constant @__constant_3x2xf32
// CHECK-LABEL: gpu.module @dense_table_kernels
// CHECK:   memref.global constant @__constant_3xi64 : memref<3xi64> = dense<[7, 8, 9]>
func.func @dense_scale(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %w = tgc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = tgc.mul %x, %w : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
func.func @dense_weight(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %w = tgc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = tgc.matmul %x, %w : tensor<?x3xf32>, tensor<3x2xf32> -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
func.func @dense_table() -> tensor<3xi64> {
  %w = tgc.constant dense<[7, 8, 9]> : tensor<3xi64>
  return %w : tensor<3xi64>
}
func.func @returns_arg(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %y = tgc.relu %x : tensor<?xf32>
  return %x, %y : tensor<?xf32>, tensor<?xf32>
}

// -----

// A reshape whose `?` sizes are another tensor's (heads split with the
// batch and sequence sizes of the block's input) reshapes through a host
// shape buffer: its stores and loads (memref.dim of the reshape folds to
// one) stay on the host for the launch plan, which reads the stored values
// as the reshape's sizes; kernels receive the reshaped buffer.

// CHECK-LABEL: func.func @heads
// CHECK:   %[[SHAPE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xindex>
// CHECK:   memref.store %{{.*}}, %[[SHAPE]][%c0] : memref<4xindex>
// CHECK:   %[[R:.*]] = memref.reshape %{{.*}}(%[[SHAPE]]) : (memref<?x?x32xf32>, memref<4xindex>) -> memref<?x?x4x8xf32>
// CHECK:   memref.load %[[SHAPE]][%c{{[01]}}] : memref<4xindex>
// CHECK:   gpu.launch_func  @heads_kernels::@heads_elementwise_1 {{.*}} args({{.*}}%[[R]] : memref<?x?x4x8xf32>
func.func @heads(%x: tensor<?x?x32xf32>, %y: tensor<?x?x32xf32>) -> tensor<?x?x4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %B = tensor.dim %x, %c0 : tensor<?x?x32xf32>
  %T = tensor.dim %x, %c1 : tensor<?x?x32xf32>
  %s = tgc.add %x, %y : tensor<?x?x32xf32>, tensor<?x?x32xf32> -> tensor<?x?x32xf32>
  %q4 = tgc.reshape %s [%B, %T] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %r = tgc.relu %q4 : tensor<?x?x4x8xf32>
  return %r : tensor<?x?x4x8xf32>
}

// -----

// A lane's divisions by the row sum: one reciprocal, then products (within
// 1.5 ulp of the quotients); exact-division keeps every division.

// CHECK-LABEL: gpu.func @softmax_64_warp_rows_0
// CHECK:     %[[R:.*]] = arith.divf %cst{{.*}}, %[[SUM:.*]] : f32
// CHECK-NOT: arith.divf
// CHECK:     arith.mulf %{{.*}}, %[[R]] : f32
// CHECK-NOT: arith.divf
// CHECK:     gpu.return
// EXACT-LABEL: gpu.func @softmax_64_warp_rows_0
// EXACT-COUNT-2: arith.divf %{{.*}}, %[[SUM:.*]] : f32
// EXACT:     gpu.return
func.func @softmax_64(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x64xf32>
  return %s : tensor<?x64xf32>
}

// -----

// Sequential loop nests (topk, cholesky) are kernels of their own. The
// loops tgc-to-linalg marks tgc.parallel (topk's rows) become a grid-stride
// loop with a thread per row; the scan inside runs in that thread as it
// would on the host. Without such loops (topk of a vector) the kernel is
// one thread.

// CHECK-LABEL: func.func @topk_rows
// CHECK:   gpu.launch_func  @topk_rows_kernels::@topk_rows_loop_{{[0-9]+}} blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)  args(%[[ROWS:.*]] : index, %arg0 : memref<?x?xf32>, %{{.*}} : memref<?x3xf32>, %{{.*}} : memref<?x3xi64>, %[[COLS:.*]] : index)
// CHECK-NOT: scf.for
// CHECK:   return
// CHECK-LABEL: gpu.func @topk_rows_loop_
// CHECK-SAME: (%[[N:.*]]: index, %[[X:.*]]: memref<?x?xf32>, %{{.*}}: memref<?x3xf32>, %{{.*}}: memref<?x3xi64>, %[[M:.*]]: index)
// CHECK:   gpu.block_id  x
// CHECK:   scf.for %[[ROW:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK:     scf.for %[[J:.*]] = %c0 to %[[M]] step %c1 iter_args
// CHECK:       memref.load %[[X]][%[[ROW]], %[[J]]] : memref<?x?xf32>
// CHECK:   gpu.return
func.func @topk_rows(%x: tensor<?x?xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>) {
  %a, %b = tgc.topk %x k = 3 dim = 1 : tensor<?x?xf32> -> tensor<?x3xf32>, tensor<?x3xi64>
  return %a, %b : tensor<?x3xf32>, tensor<?x3xi64>
}

// -----

// CHECK-LABEL: func.func @topk_vector
// CHECK:   gpu.launch_func  @topk_vector_kernels::@topk_vector_serial_{{[0-9]+}} blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
// CHECK-LABEL: gpu.func @topk_vector_serial_
// CHECK-NOT: gpu.block_id
// CHECK:   scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK:   gpu.return
func.func @topk_vector(%x: tensor<?xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %a, %b = tgc.topk %x k = 4 dim = 0 : tensor<?xf32> -> tensor<4xf32>, tensor<4xi64>
  return %a, %b : tensor<4xf32>, tensor<4xi64>
}

// -----

// scatter_add's loop nest: its loops from `dim` on (tgc.parallel_atomic_add)
// may hit one element twice. With f32 they become threads too, each update
// a memref.atomic_rmw (an embedding's backward: a thread per (id, column)).
// The zeros it starts from are a fill kernel into the result's buffer.

// CHECK-LABEL: func.func @embedding_backward
// CHECK:   cf.assert %{{.*}}, "tgc.scatter_add: index out of range"
// CHECK:   %[[OUT:.*]] = memref.alloc() {{.*}}: memref<100x64xf32>
// CHECK:   gpu.launch_func  @embedding_backward_kernels::@embedding_backward_elementwise_{{[0-9]+}} {{.*}} args(%[[OUT]] : memref<100x64xf32>)
// CHECK:   gpu.launch_func  @embedding_backward_kernels::@embedding_backward_loop_{{[0-9]+}} blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)  args(%[[N:.*]] : index, %arg1 : memref<?xi64>, %{{.*}} : index, %arg0 : memref<?x64xf32>, %[[OUT]] : memref<100x64xf32>)
// CHECK-NEXT: return %[[OUT]]
// CHECK-LABEL: gpu.func @embedding_backward_loop_
// CHECK:   scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-DAG: %[[COL:.*]] = arith.remui %[[T]], %c64 : index
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[T]], %c64 : index
// CHECK:     %[[ID:.*]] = memref.load %{{.*}}[%[[ROW]]] : memref<?xi64>
// CHECK:     %[[TO:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK:     scf.if
// CHECK:       %[[V:.*]] = memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<?x64xf32>
// CHECK-NEXT:  memref.atomic_rmw addf %[[V]], %{{.*}}[%[[TO]], %[[COL]]] : (f32, memref<100x64xf32>) -> f32
// CHECK-NOT: memref.store
// CHECK:   gpu.return
func.func @embedding_backward(%g: tensor<?x64xf32>, %ids: tensor<?xi64>) -> tensor<100x64xf32> {
  %z = tgc.full 0.0 : f32 : tensor<100x64xf32>
  %s = tgc.scatter_add %z, %ids, %g dim = 0 : tensor<100x64xf32>, tensor<?xi64>, tensor<?x64xf32> -> tensor<100x64xf32>
  return %s : tensor<100x64xf32>
}

// -----

// f16 (like bf16 and i8) has an atomic add too (PTX's atom.add.noftz.f16;
// i8 through a compare-and-swap loop): along dim 1 the rows (tgc.parallel)
// and the index columns (tgc.parallel_atomic_add) are all threads. The
// base, an argument, is copied first.

// CHECK-LABEL: func.func @scatter_rows_f16
// CHECK:   gpu.launch_func  @scatter_rows_f16_kernels::@scatter_rows_f16_elementwise_{{[0-9]+}} {{.*}} args(%{{.*}} : index, %arg0 : memref<?x8xf16>, %[[OUT:.*]] : memref<?x8xf16>)
// CHECK:   gpu.launch_func  @scatter_rows_f16_kernels::@scatter_rows_f16_loop_{{[0-9]+}} {{.*}} %[[OUT]] : memref<?x8xf16>)
// CHECK-LABEL: gpu.func @scatter_rows_f16_loop_
// CHECK:   scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-DAG: %[[J:.*]] = arith.remui %[[T]], %c3 : index
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[T]], %c3 : index
// CHECK:     scf.if
// CHECK:       %[[V:.*]] = memref.load %{{.*}}[%[[ROW]], %[[J]]] : memref<?x3xf16>
// CHECK-NEXT:  memref.atomic_rmw addf %[[V]], %{{.*}}[%[[ROW]], %{{.*}}] : (f16, memref<?x8xf16>) -> f16
// CHECK-NOT: memref.store
// CHECK:   gpu.return
func.func @scatter_rows_f16(%b: tensor<?x8xf16>, %i: tensor<?x3xi64>, %s: tensor<?x3xf16>) -> tensor<?x8xf16> {
  %0 = tgc.scatter_add %b, %i, %s dim = 1 : tensor<?x8xf16>, tensor<?x3xi64>, tensor<?x3xf16> -> tensor<?x8xf16>
  return %0 : tensor<?x8xf16>
}

// -----

// A concat's inputs are written into their slices by kernels of their
// own, before the layer norm's row kernel (in the row kernel, whose stats
// buffers may reuse the copies' sources, they raced with the rows: HF ViT's
// embeddings, issue 17). The permute writes its slice directly (empty-tensor
// elimination of the concat's insert_slice), not a temporary and a copy.
// CHECK-LABEL: func.func @concat_norm
// CHECK: gpu.launch_func @concat_norm_kernels::@concat_norm_elementwise_0 {{.*}} args(%arg0 : memref<2x1x64xf32>, %{{.*}} : memref<2x1x64xf32, strided<[512, 64, 1]>>)
// CHECK: gpu.launch_func @concat_norm_kernels::@concat_norm_elementwise_1 {{.*}} args(%arg1 : memref<2x64x7xf32>, %{{.*}} : memref<2x7x64xf32, strided<[512, 64, 1], offset: 64>>)
// CHECK: gpu.launch_func @concat_norm_kernels::@concat_norm_warp_rows_2
// CHECK-NOT: gpu.launch_func
func.func @concat_norm(%a: tensor<2x1x64xf32>, %b: tensor<2x64x7xf32>, %w: tensor<64xf32>, %bias: tensor<64xf32>) -> tensor<2x8x64xf32> {
  %p = tgc.permute %b [0, 2, 1] : tensor<2x64x7xf32> -> tensor<2x7x64xf32>
  %c = tgc.concat %a, %p dim = 1 : (tensor<2x1x64xf32>, tensor<2x7x64xf32>) -> tensor<2x8x64xf32>
  %n = tgc.layer_norm %c weight(%w : tensor<64xf32>) bias(%bias : tensor<64xf32>) normalized_rank = 1 eps = 1.0e-5 : tensor<2x8x64xf32>
  return %n : tensor<2x8x64xf32>
}

// -----

// Without tgc-hoist-checks, the gather's index check (a flag the kernels
// compute, read by the launch plan) shares its kernel with the gather: the
// plan reads the flag after that kernel, not where the flag's generic was
// (before the kernel, it read whatever the arena held: "index out of
// range" for valid indices).
// NOHOIST-LABEL: func.func @gather_check
// NOHOIST: gpu.launch_func @gather_check_kernels::@gather_check_warp_rows_1 {{.*}} args(%[[F:[a-z_0-9]+]] : memref<i1>,
// NOHOIST-NEXT: %[[OK:.*]] = memref.load %[[F]][] : memref<i1>
// NOHOIST-NEXT: cf.assert %[[OK]], "tgc.gather: index out of range"
// With it (the default), the check of the input indices is a kernel of its
// own before the sum's: the launch plan waits for it, then issues the rest.
// CHECK-LABEL: func.func @gather_check
// CHECK: gpu.launch_func @gather_check_kernels::@gather_check_warp_rows_0 {{.*}} args(%[[F:[a-z_0-9]+]] : memref<i1>, %arg1 : memref<2xi64>)
// CHECK-NEXT: %[[OK:.*]] = memref.load %[[F]][] : memref<i1>
// CHECK-NEXT: cf.assert %[[OK]], "tgc.gather: index out of range"
// CHECK: gpu.launch_func @gather_check_kernels::@gather_check_warp_rows_1 {{.*}} %arg0 : memref<4xf32>
func.func @gather_check(%x: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %n = tgc.sum %x dims [0] keepdim : tensor<4xf32> -> tensor<1xf32>
  %g = tgc.gather %n, %i dim = 0 : tensor<1xf32>, tensor<2xi64> -> tensor<2xf32>
  %c = tgc.tanh %g : tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// An f32 product rounded to f16 is no cuBLASLt epilogue: cuBLASLt has no
// algorithm for f32 A and B with an f16 D (it failed at run time). The
// GEMM writes f32 and a kernel rounds it.
// CHECK-LABEL: func.func @matmul_f32_to_f16
// CHECK: linalg.generic
// CHECK-SAME: tgc_gpu.gemm = #tgc_gpu.gemm<
// CHECK-NOT: epilogue
// CHECK: gpu.launch_func @matmul_f32_to_f16_kernels::@matmul_f32_to_f16_elementwise_0 {{.*}} args(%{{.*}} : memref<8x6xf32>, %{{.*}} : memref<8x6xf16>)
func.func @matmul_f32_to_f16(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf16> {
  %m = tgc.matmul %a, %b : tensor<8x4xf32>, tensor<4x6xf32> -> tensor<8x6xf32>
  %h = tgc.convert %m : tensor<8x6xf32> -> tensor<8x6xf16>
  return %h : tensor<8x6xf16>
}

// -----

// A slice with a step, returned: bufferization casts the strided view to
// the identity layout of the result. The copy kernel reads the view
// itself (strided, element by element), not the cast, whose type claims
// contiguous rows: a flat vectorized copy read the rows of x[::3] as if
// they were adjacent.
// CHECK-LABEL: func.func @step_slice
// CHECK: %[[V:.*]] = memref.subview %{{.*}}[0, 0] [3, %{{.*}}] [3, 1] : memref<8x?xf32> to memref<3x?xf32, strided<[?, 1]>>
// CHECK-NOT: memref.cast
// CHECK: gpu.launch_func @step_slice_kernels::@step_slice_elementwise_1 {{.*}} args(%{{.*}} : index, %[[V]] : memref<3x?xf32, strided<[?, 1]>>, %{{.*}} : memref<3x?xf32>)
// CHECK-NOT: tgc_gpu.vector_align
// CHECK-LABEL: gpu.module
func.func @step_slice(%x: tensor<8x?xf32>) -> tensor<3x?xf32> {
  %e = tgc.exp2 %x : tensor<8x?xf32>
  %s = tgc.slice %e dim = 0 start = -8 end = 7 step = 3 : tensor<8x?xf32> -> tensor<3x?xf32>
  return %s : tensor<3x?xf32>
}

// -----

// A row group's stages run over the same rows: one block per row. The sum
// over a 1x1 tensor (one row) and the add over ?x7 that broadcasts it are
// no row group: as one, its grid had one block and the add's rows past
// the first were never computed (GPU fuzzing, seed 304416).
// CHECK-LABEL: func.func @rows_differ
// CHECK-NOT: warp_rows
// CHECK: gpu.launch_func @rows_differ_kernels::@rows_differ_elementwise_{{[0-9]+}} blocks in (%{{[0-9]+}}, %c1, %c1) {{.*}} args(%{{.*}} : index, %arg0 : memref<?x7xf32>, %{{.*}} : memref<1x1xf32>, %{{.*}} : memref<?x7xf32>)
// CHECK-LABEL: gpu.module
func.func @rows_differ(%a0: tensor<?x7xf32>, %a2: tensor<3x?xf32>) -> tensor<?x7xf32> {
  %c = tgc.constant dense<1.5> : tensor<f32>
  %m = tgc.maximum %a0, %c : tensor<?x7xf32>, tensor<f32> -> tensor<?x7xf32>
  %r = tgc.amin %a2 dims [0, 1] keepdim : tensor<3x?xf32> -> tensor<1x1xf32>
  %s = tgc.sum %r dims [1] keepdim : tensor<1x1xf32> -> tensor<1x1xf32>
  %y = tgc.add %m, %s : tensor<?x7xf32>, tensor<1x1xf32> -> tensor<?x7xf32>
  return %y : tensor<?x7xf32>
}

// -----

// A tree's epilogue runs at the tree's output points only. The add over
// the elements of %w, which the division broadcasts along the one row of
// the log-softmax, is no epilogue of the row's sum: as one, only its first
// element was computed (GPU fuzzing, seeds 401554 and 300092). It runs as
// its own elementwise kernel over all of %w.
// CHECK-LABEL: func.func @tree_broadcast_operand
// CHECK-NOT: _tree_{{.*}}%arg1
// CHECK: gpu.launch_func @tree_broadcast_operand_kernels::@tree_broadcast_operand_elementwise_{{[0-9]+}} {{.*}} args(%{{.*}} : index, %arg1 : memref<?xf32>, %{{.*}} : memref<?xf32>)
// CHECK-LABEL: gpu.module
func.func @tree_broadcast_operand(%x: tensor<?xf32>, %w: tensor<?xf32>) -> tensor<1x?xf32> {
  %half = tgc.constant dense<0.5> : tensor<f32>
  %u = tgc.unsqueeze %x dim = 0 : tensor<?xf32> -> tensor<1x?xf32>
  %l = tgc.log_softmax %u dim = 1 : tensor<1x?xf32>
  %a = tgc.abs %w : tensor<?xf32>
  %d = tgc.add %a, %half : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  %y = tgc.div %l, %d : tensor<1x?xf32>, tensor<?xf32> -> tensor<1x?xf32>
  return %y : tensor<1x?xf32>
}

// -----

// Dynamic rows are one row group only when provably the same size: here
// the rows of %w (arg 1 dim 0) and of %x (arg 0 dim 0), which the guard set
// checks equal (the mul broadcasts them). One warp-per-row kernel.
// CHECK-LABEL: func.func @rows_guard_equal
// CHECK: gpu.launch_func @rows_guard_equal_kernels::@rows_guard_equal_warp_rows_0
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: gpu.module
func.func @rows_guard_equal(%x: tensor<?x32xf32>, %w: tensor<?x1xf32>) -> tensor<?x32xf32> {
  %s = tgc.sum %x dims [1] keepdim : tensor<?x32xf32> -> tensor<?x1xf32>
  %e = tgc.exp %w : tensor<?x1xf32>
  %m = tgc.mul %e, %s : tensor<?x1xf32>, tensor<?x1xf32> -> tensor<?x1xf32>
  %y = tgc.div %x, %m : tensor<?x32xf32>, tensor<?x1xf32> -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// A division's check reads its flag right after the kernels that write it.
// The planner gives the flag's bytes to the comparison once the check has
// read them, and CSE makes that the same view: the where's kernel takes it.
// The check stays before that kernel, which would otherwise make it read
// the comparison as the flag (a false "division by zero": GPU fuzzing,
// seed 901766).
// CHECK-LABEL: func.func @check_flag_reused
// CHECK: gpu.launch_func @check_flag_reused_kernels::@check_flag_reused_tree_final_{{[0-9]+}}
// CHECK-NEXT: %[[FLAG:.*]] = memref.load %[[VIEW:view_[0-9]+]][] : memref<i1>
// CHECK: cf.assert %{{.*}}, "tgc.div: integer division by zero"
// CHECK: gpu.launch_func @check_flag_reused_kernels::@check_flag_reused_elementwise_{{[0-9]+}} {{.*}}%[[VIEW]] : memref<i1>
// CHECK-LABEL: gpu.module
func.func @check_flag_reused(%a: tensor<?xi32>, %b: tensor<?xi32>, %x: tensor<f32>, %y: tensor<f32>, %o: tensor<?xf32>) -> tensor<?xi32> {
  %one = tgc.constant dense<1> : tensor<i32>
  %ab = tgc.abs %b : tensor<?xi32>
  %d = tgc.add %ab, %one : tensor<?xi32>, tensor<i32> -> tensor<?xi32>
  %q = tgc.div %a, %d rounding = trunc : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>
  %f = tgc.convert %q : tensor<?xi32> -> tensor<?xf32>
  %ls = tgc.log_softmax %f dim = 0 : tensor<?xf32>
  %c = tgc.cmp ge, %x, %y : tensor<f32>, tensor<f32> -> tensor<i1>
  %w = tgc.where %c, %y, %ls : tensor<i1>, tensor<f32>, tensor<?xf32> -> tensor<?xf32>
  tgc.write_out %w into %o : tensor<?xf32> into tensor<?xf32>
  return %q : tensor<?xi32>
}

// -----

// The comparison after a division (a tree epilogue of the amin) writes the
// bytes the planner gave the division's flag, which is checked before the
// comparison in the function. Fused into the tree's final stage it would
// overwrite the flag before the check read it (a false "division by
// zero": GPU fuzzing, seed 928076, reduced): tgc-gpu-select-strategy
// starts a new kernel at it, after the check (without tgc-hoist-checks;
// with it, the divisor's check comes first, before the amin's kernels).
// NOHOIST-LABEL: func.func @check_flag_overwritten
// NOHOIST: gpu.launch_func @check_flag_overwritten_kernels::@check_flag_overwritten_tree_final_1
// NOHOIST-SAME: %[[FLAG:alloc_[0-9]+]] : memref<i1>
// NOHOIST-NEXT: memref.load %[[FLAG]][] : memref<i1>
// NOHOIST-NEXT: cf.assert %{{.*}}, "tgc.div: integer division by zero"
// NOHOIST-NEXT: gpu.launch_func @check_flag_overwritten_kernels::@check_flag_overwritten_elementwise_2 {{.*}}%[[FLAG]] : memref<i1>)
// NOHOIST-NEXT: return %[[FLAG]]
// CHECK-LABEL: func.func @check_flag_overwritten
// CHECK: gpu.launch_func @check_flag_overwritten_kernels::@check_flag_overwritten_elementwise_1 {{.*}} args(%arg2 : memref<i64>, %[[FLAG:alloc_[0-9]+]] : memref<i1>)
// CHECK-NEXT: memref.load %[[FLAG]][] : memref<i1>
// CHECK-NEXT: cf.assert %{{.*}}, "tgc.div: integer division by zero"
// CHECK: gpu.launch_func @check_flag_overwritten_kernels::@check_flag_overwritten_tree_2
// CHECK: gpu.launch_func @check_flag_overwritten_kernels::@check_flag_overwritten_elementwise_4 {{.*}}%[[FLAG]] : memref<i1>)
// CHECK-NEXT: return %[[FLAG]]
func.func @check_flag_overwritten(%a: tensor<?xi64>, %t: tensor<f32>, %c: tensor<i64>) -> tensor<i1> {
  %m = tgc.amin %a dims [0] : tensor<?xi64> -> tensor<i64>
  %q = tgc.div %m, %c rounding = trunc : tensor<i64>, tensor<i64> -> tensor<i64>
  %abs = tgc.abs %q : tensor<i64>
  %f = tgc.convert %abs : tensor<i64> -> tensor<f32>
  %s = tgc.constant dense<3.814697265625e-06> : tensor<f32>
  %p = tgc.mul %f, %s : tensor<f32>, tensor<f32> -> tensor<f32>
  %r = tgc.cmp gt, %p, %t : tensor<f32>, tensor<f32> -> tensor<i1>
  return %r : tensor<i1>
}

// -----

// The same with the flag in the arena: the comparison's buffer is the
// flag's view itself, and a view overlaps itself (an i1 is one byte, which
// the overlap test once counted as 1/8 of one, so as no bytes at all).
// NOHOIST-LABEL: func.func @check_flag_view
// NOHOIST: gpu.launch_func @check_flag_view_kernels::@check_flag_view_tree_final_1
// NOHOIST-NEXT: %[[F:.*]] = memref.load %[[FLAG:view_[0-9]+]][] : memref<i1>
// NOHOIST-NEXT: cf.assert %[[F]], "tgc.div: integer division by zero"
// NOHOIST-NEXT: gpu.launch_func @check_flag_view_kernels::@check_flag_view_elementwise_2 {{.*}}%[[FLAG]] : memref<i1>)
// CHECK-LABEL: func.func @check_flag_view
// CHECK: gpu.launch_func @check_flag_view_kernels::@check_flag_view_elementwise_1 {{.*}}args(%arg1 : memref<i64>, %[[FLAG:view_[0-9]+]] : memref<i1>)
// CHECK-NEXT: %[[F:.*]] = memref.load %[[FLAG]][] : memref<i1>
// CHECK-NEXT: cf.assert %[[F]], "tgc.div: integer division by zero"
// CHECK: gpu.launch_func @check_flag_view_kernels::@check_flag_view_tree_final_3
// CHECK-NEXT: gpu.launch_func @check_flag_view_kernels::@check_flag_view_elementwise_4 {{.*}}%[[FLAG]] : memref<i1>)
func.func @check_flag_view(%a: tensor<?xi64>, %c: tensor<i64>, %t: tensor<f32>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %m = tgc.amin %a dims [0] : tensor<?xi64> -> tensor<i64>
  %abs = tgc.abs %c : tensor<i64>
  %one = tgc.constant dense<1> : tensor<i64>
  %d = tgc.add %abs, %one : tensor<i64>, tensor<i64> -> tensor<i64>
  %q = tgc.div %m, %d rounding = trunc : tensor<i64>, tensor<i64> -> tensor<i64>
  %f = tgc.convert %q : tensor<i64> -> tensor<f32>
  %r = tgc.cmp gt, %f, %t : tensor<f32>, tensor<f32> -> tensor<i1>
  %w = tgc.where %r, %x, %t : tensor<i1>, tensor<?x4xf32>, tensor<f32> -> tensor<?x4xf32>
  return %w : tensor<?x4xf32>
}

// -----

// A row sum broadcast back through a view of its buffer (x - g.sum(-1,
// keepdim=True)): the epilogue reads the sum through the expand_shape that
// adds the kept dim. With register slots (static rows) every thread has
// the row's total, and the view only adds a unit dim: the epilogue reads
// the register, no barrier and no load of the sum.

// CHECK-LABEL: gpu.func @sum_broadcast_rows_0
// CHECK:           memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4096xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     gpu.barrier
// CHECK-NOT:     memref.load %{{.*}} : memref<4096x1xf32>
// CHECK:         gpu.return
func.func @sum_broadcast(%x: tensor<4096x768xf32>, %g: tensor<4096x768xf32>) -> tensor<4096x768xf32> {
  %s = tgc.sum %g dims [1] keepdim : tensor<4096x768xf32> -> tensor<4096x1xf32>
  %r = tgc.sub %x, %s : tensor<4096x768xf32>, tensor<4096x1xf32> -> tensor<4096x768xf32>
  return %r : tensor<4096x768xf32>
}

// -----

// The same over rows of a dynamic length (no register slots): the first
// thread stores the row's f32 sum and the epilogue reads it from memory
// through the view, so a barrier must separate the store from the read
// (it was missing: other threads read the sum before it was written, a
// wrong answer on the H100 for 4096 rows of 768..2048).

// CHECK-LABEL: gpu.func @sum_broadcast_dynamic_rows_0
// CHECK:           memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4096xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK:         memref.load %{{.*}}[%{{.*}}, %c0] : memref<4096x1xf32>
func.func @sum_broadcast_dynamic(%x: tensor<4096x?xf32>, %g: tensor<4096x?xf32>) -> tensor<4096x?xf32> {
  %s = tgc.sum %g dims [1] keepdim : tensor<4096x?xf32> -> tensor<4096x1xf32>
  %r = tgc.sub %x, %s : tensor<4096x?xf32>, tensor<4096x1xf32> -> tensor<4096x?xf32>
  return %r : tensor<4096x?xf32>
}

// -----

// Rows of 20000 run 1024 threads each (long-row-block-size). Past 256
// threads the buffers read along the row share 32 register slots: a
// softmax's one input (20 slots) stays in registers, no loop re-reads it;
// a softmax with its backward reads two (40 slots) and loops over the row
// (kept in registers, they made the launch fail: too many resources).
// CHECK-LABEL: func.func @long_row_softmax
// CHECK: gpu.launch_func @long_row_softmax_kernels::@long_row_softmax_rows_0 {{.*}} threads in (%c1024, %c1, %c1)
// CHECK: gpu.func @long_row_softmax_rows_0
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @long_row_softmax(%x: tensor<4x20000xf32>) -> tensor<4x20000xf32> {
  %y = tgc.softmax %x dim = 1 : tensor<4x20000xf32>
  return %y : tensor<4x20000xf32>
}

// -----

// CHECK-LABEL: func.func @long_row_softmax_backward
// CHECK: gpu.launch_func @long_row_softmax_backward_kernels::@long_row_softmax_backward_rows_0 {{.*}} threads in (%c1024, %c1, %c1)
// CHECK: gpu.func @long_row_softmax_backward_rows_0
// CHECK: scf.for
// CHECK: gpu.return
func.func @long_row_softmax_backward(%x: tensor<4x20000xf32>, %g: tensor<4x20000xf32>) -> (tensor<4x20000xf32>, tensor<4x20000xf32>) {
  %y = tgc.softmax %x dim = 1 : tensor<4x20000xf32>
  %p = tgc.mul %g, %y : tensor<4x20000xf32>, tensor<4x20000xf32> -> tensor<4x20000xf32>
  %s = tgc.sum %p dims [1] keepdim : tensor<4x20000xf32> -> tensor<4x1xf32>
  %d = tgc.sub %g, %s : tensor<4x20000xf32>, tensor<4x1xf32> -> tensor<4x20000xf32>
  %r = tgc.mul %y, %d : tensor<4x20000xf32>, tensor<4x20000xf32> -> tensor<4x20000xf32>
  return %y, %r : tensor<4x20000xf32>, tensor<4x20000xf32>
}

// -----

// A training graph's layer norm (native_layer_norm decomposed, rows of 768
// f32, a block each): `rsqrt(var + eps)` runs on the `[?, 1]` statistics,
// a stage with the row loop whose row has one element. It is a per-row
// stage like the reductions' own: every thread computes it in registers,
// so the rows keep their register slots (6 per thread, read as 8-byte
// vectors once) instead of a loop over the row per stage that reloads x.
// CHECK-LABEL: gpu.func @native_layer_norm_768_rows_0
// CHECK-NOT: scf.for
// CHECK-COUNT-3: vector.load %{{.*}} : memref<?x768xf32>, vector<2xf32>
// CHECK-NOT: memref.load {{.*}} : memref<?x768xf32>
// CHECK-NOT: scf.for
// CHECK: math.rsqrt
// CHECK-NOT: scf.for
// CHECK: vector.store %{{.*}} : memref<?x768xf32>, vector<2xf32>
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @native_layer_norm_768(%x: tensor<?x768xf32>, %w: tensor<768xf32>, %b: tensor<768xf32>) -> (tensor<?x768xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %m = tgc.mean %x dims [1] keepdim : tensor<?x768xf32> -> tensor<?x1xf32>
  %d = tgc.sub %x, %m : tensor<?x768xf32>, tensor<?x1xf32> -> tensor<?x768xf32>
  %s = tgc.mul %d, %d : tensor<?x768xf32>, tensor<?x768xf32> -> tensor<?x768xf32>
  %v = tgc.mean %s dims [1] keepdim : tensor<?x768xf32> -> tensor<?x1xf32>
  %eps = tgc.constant dense<1.0e-05> : tensor<f32>
  %ve = tgc.add %v, %eps : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %r = tgc.rsqrt %ve : tensor<?x1xf32>
  %n = tgc.mul %d, %r : tensor<?x768xf32>, tensor<?x1xf32> -> tensor<?x768xf32>
  %nw = tgc.mul %n, %w : tensor<?x768xf32>, tensor<768xf32> -> tensor<?x768xf32>
  %y = tgc.add %nw, %b : tensor<?x768xf32>, tensor<768xf32> -> tensor<?x768xf32>
  return %y, %m, %r : tensor<?x768xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// The same with rows of 256 f32 (a warp per row): the per-row stage on the
// [?, 1] statistics keeps the warp's slots too (16-byte vectors, no loop
// over the row, no barrier).
// CHECK-LABEL: gpu.func @native_layer_norm_256_warp_rows_0
// CHECK-NOT: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<?x256xf32>, vector<4xf32>
// CHECK-NOT: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: math.rsqrt
// CHECK-NOT: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @native_layer_norm_256(%x: tensor<?x256xf32>, %w: tensor<256xf32>, %b: tensor<256xf32>) -> (tensor<?x256xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %m = tgc.mean %x dims [1] keepdim : tensor<?x256xf32> -> tensor<?x1xf32>
  %d = tgc.sub %x, %m : tensor<?x256xf32>, tensor<?x1xf32> -> tensor<?x256xf32>
  %s = tgc.mul %d, %d : tensor<?x256xf32>, tensor<?x256xf32> -> tensor<?x256xf32>
  %v = tgc.mean %s dims [1] keepdim : tensor<?x256xf32> -> tensor<?x1xf32>
  %eps = tgc.constant dense<1.0e-05> : tensor<f32>
  %ve = tgc.add %v, %eps : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %r = tgc.rsqrt %ve : tensor<?x1xf32>
  %n = tgc.mul %d, %r : tensor<?x256xf32>, tensor<?x1xf32> -> tensor<?x256xf32>
  %nw = tgc.mul %n, %w : tensor<?x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %y = tgc.add %nw, %b : tensor<?x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  return %y, %m, %r : tensor<?x256xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}
