// RUN: tgc-opt %s --tgc-gpu-select-strategy -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-gpu-select-strategy="vectorize=0 gemm-epilogues=0 row-block-size=256 block-size=64" -split-input-file | FileCheck %s --check-prefix=OPTS
// RUN: not tgc-opt %s --tgc-gpu-select-strategy="block-size=100" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tgc-opt %s --tgc-gpu-select-strategy="long-row-block-size=0" -split-input-file | FileCheck %s --check-prefix=LONG0
// RUN: not tgc-opt %s --tgc-gpu-select-strategy="long-row-block-size=100" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADLONG
// BADLONG: long-row-block-size must be 0 or a multiple of 32 in [32, 1024], got 100

// tgc-gpu-select-strategy alone: what each segment of a fusion group runs
// as, and which contractions cuBLASLt runs. The inputs are the bufferized
// functions that tgc-gpu-pipeline hands the pass (their guard sets left
// out).

// BAD: block-size must be a multiple of 32 in [32, 1024], got 100

// An elementwise op over contiguous f32 buffers: flat, 4 elements per
// 16-byte access.
// CHECK-LABEL: func.func @pointwise
// CHECK: linalg.generic
// CHECK-SAME: tgc_gpu.strategy = #tgc_gpu.strategy<flat, kernel = 0, threads = 256, vector = 4>
// OPTS-LABEL: func.func @pointwise
// OPTS: tgc_gpu.strategy = #tgc_gpu.strategy<element, kernel = 0, threads = 64>
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @pointwise(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>) -> memref<?x?xf32> {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %alloc = memref.alloc(%dim, %dim_0) {alignment = 64 : i64} : memref<?x?xf32>
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : memref<?x?xf32>, memref<?x?xf32>) outs(%alloc : memref<?x?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %alloc : memref<?x?xf32>
  }
}

// -----

// A broadcast operand: one thread per element.
// CHECK-LABEL: func.func @broadcast
// CHECK: tgc_gpu.strategy = #tgc_gpu.strategy<element, kernel = 0, threads = 256>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @broadcast(%arg0: memref<?x?xf32>, %arg1: memref<?xf32>) -> memref<?x?xf32> {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %alloc = memref.alloc(%dim, %dim_0) {alignment = 64 : i64} : memref<?x?xf32>
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : memref<?x?xf32>, memref<?xf32>) outs(%alloc : memref<?x?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %alloc : memref<?x?xf32>
  }
}

// -----

// Softmax's five stages (max, exp, sum, divide) are one row kernel with
// the row block size, vectors and registers allowed.
// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-5: tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128, vectors = true, registers = true>
// CHECK-NOT: tgc_gpu.strategy
// OPTS-LABEL: func.func @softmax
// OPTS-COUNT-5: tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 256, registers = true>
#map = affine_map<()[s0, s1] -> (((s0 * 4) ceildiv 64) * 128)>
#map1 = affine_map<()[s0, s1] -> (((s0 * 4) ceildiv 64) * 64)>
#map2 = affine_map<(d0) -> ()>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @softmax(%arg0: memref<?x?xf32>) -> memref<?x?xf32> attributes {tgc.memory_plan = {arena_bytes = #map, buffers = 2 : i64, dims = array<i64: 0, 0, 0, 1>, peak_bytes = [#map1, #map], slots = 2 : i64}} {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c64 = arith.constant 64 : index
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
    %0 = arith.muli %dim, %c4 : index
    %1 = arith.ceildivsi %0, %c64 : index
    %2 = arith.muli %1, %c128 : index
    %alloc = memref.alloc(%2) {alignment = 64 : i64, tgc.arena} : memref<?xi8>
    %3 = arith.muli %dim, %c4 : index
    %4 = arith.ceildivsi %3, %c64 : index
    %5 = arith.muli %4, %c64 : index
    %dim_1 = memref.dim %arg0, %c0 : memref<?x?xf32>
    %view = memref.view %alloc[%c0][%dim_1] : memref<?xi8> to memref<?xf32>
    %view_2 = memref.view %alloc[%5][%dim_1] : memref<?xi8> to memref<?xf32>
    linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%cst : f32) outs(%view_2 : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<?x?xf32>) outs(%view_2 : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.maximumf %out, %in : f32
      linalg.yield %6 : f32
    }
    linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%cst_0 : f32) outs(%view : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#map4, #map5, #map5], iterator_types = ["parallel", "reduction"]} ins(%arg0, %view_2 : memref<?x?xf32>, memref<?xf32>) outs(%view : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %6 = arith.subf %in, %in_5 : f32
      %7 = math.exp %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    }
    %dim_3 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %alloc_4 = memref.alloc(%dim_1, %dim_3) {alignment = 64 : i64} : memref<?x?xf32>
    linalg.generic {indexing_maps = [#map4, #map5, #map5, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg0, %view_2, %view : memref<?x?xf32>, memref<?xf32>, memref<?xf32>) outs(%alloc_4 : memref<?x?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %in_5: f32, %in_6: f32, %out: f32):
      %6 = arith.subf %in, %in_5 : f32
      %7 = math.exp %6 : f32
      %8 = arith.divf %7, %in_6 : f32
      linalg.yield %8 : f32
    }
    return %alloc_4 : memref<?x?xf32>
  }
}

// -----

// A column mean: the fill of its f64 accumulator, the tree reduction and
// the division after it are one tree kernel.
// CHECK-LABEL: func.func @column_mean
// CHECK-COUNT-3: tgc_gpu.strategy = #tgc_gpu.strategy<tree, kernel = 0, threads = 256, vectors = true>
// CHECK-NOT: tgc_gpu.strategy
// OPTS-LABEL: func.func @column_mean
// OPTS-COUNT-3: tgc_gpu.strategy = #tgc_gpu.strategy<tree, kernel = 0, threads = 64>
#map = affine_map<()[s0] -> (((s0 * 8) ceildiv 64) * 64)>
#map1 = affine_map<(d0) -> ()>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @column_mean(%arg0: memref<?x?xf32>) -> memref<?xf32> attributes {tgc.memory_plan = {arena_bytes = #map, buffers = 1 : i64, dims = array<i64: 0, 1>, peak_bytes = [#map], slots = 1 : i64}} {
    %cst = arith.constant 0.000000e+00 : f64
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %dim = memref.dim %arg0, %c1 : memref<?x?xf32>
    %0 = arith.muli %dim, %c8 : index
    %1 = arith.ceildivsi %0, %c64 : index
    %2 = arith.muli %1, %c64 : index
    %alloc = memref.alloc(%2) {alignment = 64 : i64, tgc.arena} : memref<?xi8>
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %view = memref.view %alloc[%c0][%dim_0] : memref<?xi8> to memref<?xf64>
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel"]} ins(%cst : f64) outs(%view : memref<?xf64>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    }
    linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction", "parallel"]} ins(%arg0 : memref<?x?xf32>) outs(%view : memref<?xf64>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %out: f64):
      %5 = arith.extf %in : f32 to f64
      %6 = arith.addf %out, %5 : f64
      linalg.yield %6 : f64
    }
    %dim_1 = memref.dim %arg0, %c0 : memref<?x?xf32>
    %3 = arith.index_cast %dim_1 {tgc.group = 0 : i64, tgc.group_kind = "single"} : index to i64
    %4 = arith.sitofp %3 {tgc.group = 0 : i64, tgc.group_kind = "single"} : i64 to f64
    %alloc_2 = memref.alloc(%dim_0) {alignment = 64 : i64} : memref<?xf32>
    linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%view : memref<?xf64>) outs(%alloc_2 : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f64, %out: f32):
      %5 = arith.divf %in, %4 : f64
      %6 = arith.truncf %5 : f64 to f32
      linalg.yield %6 : f32
    }
    return %alloc_2 : memref<?xf32>
  }
}

// -----

// linear: the zero fill of the product is dropped, the product is a
// cuBLASLt GEMM (B transposed) whose epilogue adds the bias; without
// epilogues the bias add is a kernel of its own.
// CHECK-LABEL: func.func @linear
// CHECK-NOT: tgc_gpu.strategy
// CHECK: linalg.generic
// CHECK-SAME: tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true, epilogue = bias>
// CHECK: linalg.generic
// CHECK-SAME: tgc_gpu.gemm_epilogue_of
// CHECK-NOT: tgc_gpu.strategy
// OPTS-LABEL: func.func @linear
// OPTS: tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true>
// OPTS-NOT: gemm_epilogue_of
// OPTS: tgc_gpu.strategy = #tgc_gpu.strategy<element, kernel = 0, threads = 64>
#map = affine_map<(d0, d1) -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @linear(%arg0: memref<?x64xf32>, %arg1: memref<32x64xf32>, %arg2: memref<32xf32>) -> memref<?x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x64xf32>
    %alloc = memref.alloc(%dim) {alignment = 64 : i64} : memref<?x32xf32>
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst : f32) outs(%alloc : memref<?x32xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : memref<?x64xf32>, memref<32x64xf32>) outs(%alloc : memref<?x32xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map5, #map1], iterator_types = ["parallel", "parallel"]} ins(%alloc, %arg2 : memref<?x32xf32>, memref<32xf32>) outs(%alloc : memref<?x32xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.addf %in, %in_0 : f32
      linalg.yield %0 : f32
    }
    return %alloc : memref<?x32xf32>
  }
}

// -----

// A residual added after the bias (`x + linear(a)`): cuBLASLt adds it as
// its C operand (beta = 1), so the GEMM writes the sum and the add is no
// kernel. Without a bias the epilogue is `residual`. A ReLU after the
// residual is no epilogue (cuBLASLt's activations come after beta * C,
// but the ReLU of `relu(c + b) + r` comes before the residual): the add
// stays a kernel.
// CHECK-LABEL: func.func @linear_residual
// CHECK: tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true, epilogue = bias_residual>
// CHECK: tgc_gpu.gemm_epilogue_of
// CHECK: tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true, epilogue = residual>
// CHECK: tgc_gpu.gemm_epilogue_of
// CHECK: tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true>
// CHECK-NOT: gemm_epilogue_of
// CHECK: tgc_gpu.strategy
#rmap1 = affine_map<(d0, d1) -> (d0, d1)>
#rmap2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#rmap3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#rmap4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#rmap5 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @linear_residual(%a: memref<16x64xf32>, %w: memref<32x64xf32>, %b: memref<32xf32>, %r: memref<16x32xf32>) -> (memref<16x32xf32>, memref<16x32xf32>, memref<16x32xf32>) {
    %c = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
    %o = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
    linalg.generic {indexing_maps = [#rmap2, #rmap3, #rmap4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : memref<16x64xf32>, memref<32x64xf32>) outs(%c : memref<16x32xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "matmul"} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#rmap1, #rmap5, #rmap1, #rmap1], iterator_types = ["parallel", "parallel"]} ins(%c, %b, %r : memref<16x32xf32>, memref<32xf32>, memref<16x32xf32>) outs(%o : memref<16x32xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "matmul"} {
    ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
      %0 = arith.addf %in, %in_0 : f32
      %1 = arith.addf %in_1, %0 : f32
      linalg.yield %1 : f32
    }
    %c2 = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
    %o2 = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
    linalg.generic {indexing_maps = [#rmap2, #rmap3, #rmap4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : memref<16x64xf32>, memref<32x64xf32>) outs(%c2 : memref<16x32xf32>) attrs =  {tgc.group = 1 : i64, tgc.group_kind = "matmul"} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#rmap1, #rmap1, #rmap1], iterator_types = ["parallel", "parallel"]} ins(%c2, %r : memref<16x32xf32>, memref<16x32xf32>) outs(%o2 : memref<16x32xf32>) attrs =  {tgc.group = 1 : i64, tgc.group_kind = "matmul"} {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.addf %in, %in_1 : f32
      linalg.yield %1 : f32
    }
    %c3 = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
    %o3 = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
    linalg.generic {indexing_maps = [#rmap2, #rmap3, #rmap4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : memref<16x64xf32>, memref<32x64xf32>) outs(%c3 : memref<16x32xf32>) attrs =  {tgc.group = 2 : i64, tgc.group_kind = "matmul"} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#rmap1, #rmap5, #rmap1, #rmap1], iterator_types = ["parallel", "parallel"]} ins(%c3, %b, %r : memref<16x32xf32>, memref<32xf32>, memref<16x32xf32>) outs(%o3 : memref<16x32xf32>) attrs =  {tgc.group = 2 : i64, tgc.group_kind = "matmul"} {
    ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
      %zero = arith.constant 0.000000e+00 : f32
      %0 = arith.addf %in, %in_0 : f32
      %lt = arith.cmpf olt, %0, %zero : f32
      %2 = arith.select %lt, %zero, %0 : f32
      %3 = arith.addf %2, %in_1 : f32
      linalg.yield %3 : f32
    }
    return %o, %o2, %o3 : memref<16x32xf32>, memref<16x32xf32>, memref<16x32xf32>
  }
}

// -----

// A #tgc_gpu.conv generic (tgc-to-linalg's library-convolutions) over
// buffers cuDNN takes keeps its mark and no strategy (the launch plan
// runs it as a cuDNN call), and the zero fill of its output before it is
// gone; over a weight that is not packed (cuDNN's filters have no
// strides) the mark is dropped and a kernel runs the generic.
// CHECK-LABEL: func.func @convs
// CHECK-NEXT: arith.constant
// CHECK-NEXT: memref.alloc
// CHECK-NEXT: linalg.generic
// CHECK-SAME: tgc_gpu.conv = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1>
// CHECK-NOT: tgc_gpu.strategy
// CHECK: linalg.generic
// CHECK-NOT: tgc_gpu.conv
// CHECK-SAME: tgc_gpu.strategy = #tgc_gpu.strategy<
#scalar = affine_map<(d0, d1, d2, d3) -> ()>
#fill = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  func.func @convs(%x: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32>, %v: memref<3x2x3x3xf32, strided<[1, 3, 18, 54]>>) -> (memref<1x3x3x3xf32>, memref<1x3x3x3xf32>) {
    %zero = arith.constant 0.000000e+00 : f32
    %a = memref.alloc() {alignment = 64 : i64} : memref<1x3x3x3xf32>
    linalg.generic {indexing_maps = [#scalar, #fill], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%zero : f32) outs(%a : memref<1x3x3x3xf32>) attrs = {tgc.group = 0 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%w : memref<3x2x3x3xf32>) outs(%a : memref<1x3x3x3xf32>) attrs = {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.conv = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1>} {
    ^bb0(%in: f32, %out: f32):
      %n = linalg.index 0 : index
      %c = linalg.index 4 : index
      %oh = linalg.index 2 : index
      %ow = linalg.index 3 : index
      %kh = linalg.index 5 : index
      %kw = linalg.index 6 : index
      %h = arith.addi %oh, %kh : index
      %ww = arith.addi %ow, %kw : index
      %e = memref.load %x[%n, %c, %h, %ww] : memref<1x2x5x5xf32>
      %p = arith.mulf %e, %in : f32
      %s = arith.addf %out, %p : f32
      linalg.yield %s : f32
    }
    %b = memref.alloc() {alignment = 64 : i64} : memref<1x3x3x3xf32>
    linalg.generic {indexing_maps = [#scalar, #fill], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%zero : f32) outs(%b : memref<1x3x3x3xf32>) attrs = {tgc.group = 1 : i64, tgc.group_kind = "single"} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%v : memref<3x2x3x3xf32, strided<[1, 3, 18, 54]>>) outs(%b : memref<1x3x3x3xf32>) attrs = {tgc.group = 1 : i64, tgc.group_kind = "single", tgc_gpu.conv = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1>} {
    ^bb0(%in: f32, %out: f32):
      %n = linalg.index 0 : index
      %c = linalg.index 4 : index
      %oh = linalg.index 2 : index
      %ow = linalg.index 3 : index
      %kh = linalg.index 5 : index
      %kw = linalg.index 6 : index
      %h = arith.addi %oh, %kh : index
      %ww = arith.addi %ow, %kw : index
      %e = memref.load %x[%n, %c, %h, %ww] : memref<1x2x5x5xf32>
      %p = arith.mulf %e, %in : f32
      %s = arith.addf %out, %p : f32
      linalg.yield %s : f32
    }
    return %a, %b : memref<1x3x3x3xf32>, memref<1x3x3x3xf32>
  }
}

// -----

// A static row of at least 16384 elements (a vocabulary) takes
// long-row-block-size threads: fewer rows in flight, each kept in L2
// between its passes.
// CHECK-LABEL: func.func @long_row_sum
// CHECK-COUNT-2: tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 1024, vectors = true, registers = true>
// OPTS-LABEL: func.func @long_row_sum
// OPTS-COUNT-2: tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 1024, registers = true>
// LONG0-LABEL: func.func @long_row_sum
// LONG0-COUNT-2: tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128, vectors = true, registers = true>
#fill = affine_map<(d0) -> ()>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @long_row_sum(%x: memref<4x20000xf32>) -> memref<4xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %out = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.generic {indexing_maps = [#fill, #id1], iterator_types = ["parallel"]} ins(%zero : f32) outs(%out : memref<4xf32>) attrs = {tgc.group = 0 : i64, tgc.group_kind = "single"} {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x20000xf32>) outs(%out : memref<4xf32>) attrs = {tgc.group = 0 : i64, tgc.group_kind = "single"} {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %o : f32
    linalg.yield %s : f32
  }
  return %out : memref<4xf32>
}
