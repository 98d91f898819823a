// RUN: tgc-opt %s --tgc-gpu-form-kernels -split-input-file | FileCheck %s

// tgc-gpu-form-kernels alone, on the output of tgc-gpu-select-strategy
// (test/Transforms/gpu-select-strategy.mlir's inputs): each strategy's
// kernel and launch. The kernels' bodies are checked in
// gpu-form-kernels.mlir, which runs the whole pipeline.

// flat: a grid-stride loop over 4-element vectors, then the remainder;
// the launch asks the plan for 16-byte aligned arguments.
// CHECK-LABEL: func.func @pointwise
// CHECK: gpu.launch_func  @pointwise_kernels::@pointwise_elementwise_0
// CHECK-SAME: threads in (%[[T:.*]], %{{.*}}, %{{.*}})
// CHECK-SAME: tgc_gpu.vector_align = 16 : i64}
// CHECK-NOT: tgc_gpu.strategy
// CHECK: gpu.func @pointwise_elementwise_0
// CHECK: vector.load

#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @pointwise(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>) -> memref<?x?xf32> {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %alloc = memref.alloc(%dim, %dim_0) {alignment = 64 : i64} : memref<?x?xf32>
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : memref<?x?xf32>, memref<?x?xf32>) outs(%alloc : memref<?x?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<flat, kernel = 0, threads = 256, vector = 4>} {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %alloc : memref<?x?xf32>
  }
}

// -----

// element: one thread per element, no vectors.
// CHECK-LABEL: func.func @broadcast
// CHECK: gpu.launch_func  @broadcast_kernels::@broadcast_elementwise_0
// CHECK-NOT: vector_align
// CHECK: gpu.func @broadcast_elementwise_0
// CHECK-NOT: vector.load
// CHECK: gpu.return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @broadcast(%arg0: memref<?x?xf32>, %arg1: memref<?xf32>) -> memref<?x?xf32> {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %alloc = memref.alloc(%dim, %dim_0) {alignment = 64 : i64} : memref<?x?xf32>
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : memref<?x?xf32>, memref<?xf32>) outs(%alloc : memref<?x?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<element, kernel = 0, threads = 256>} {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %alloc : memref<?x?xf32>
  }
}

// -----

// row: one kernel for the five stages, 128 threads per block.
// CHECK-LABEL: func.func @softmax
// CHECK: gpu.launch_func  @softmax_kernels::@softmax_rows_0 {{.*}} threads in (%c128{{[_0-9]*}},
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @softmax_rows_0
// CHECK: gpu.shuffle  xor
// CHECK: gpu.barrier

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
    linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%cst : f32) outs(%view_2 : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128, vectors = true, registers = true>} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<?x?xf32>) outs(%view_2 : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128, vectors = true, registers = true>} {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.maximumf %out, %in : f32
      linalg.yield %6 : f32
    }
    linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%cst_0 : f32) outs(%view : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128, vectors = true, registers = true>} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#map4, #map5, #map5], iterator_types = ["parallel", "reduction"]} ins(%arg0, %view_2 : memref<?x?xf32>, memref<?xf32>) outs(%view : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128, vectors = true, registers = true>} {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %6 = arith.subf %in, %in_5 : f32
      %7 = math.exp %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    }
    %dim_3 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %alloc_4 = memref.alloc(%dim_1, %dim_3) {alignment = 64 : i64} : memref<?x?xf32>
    linalg.generic {indexing_maps = [#map4, #map5, #map5, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg0, %view_2, %view : memref<?x?xf32>, memref<?xf32>, memref<?xf32>) outs(%alloc_4 : memref<?x?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128, vectors = true, registers = true>} {
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

// tree: two kernels; the final stage (blocks of 1024) finishes each
// output from the fill's value and runs the division.
// CHECK-LABEL: func.func @column_mean
// CHECK: gpu.launch_func  @column_mean_kernels::@column_mean_tree_0
// CHECK: gpu.launch_func  @column_mean_kernels::@column_mean_tree_final_1 {{.*}} threads in (%c1024{{[_0-9]*}},
// CHECK-NOT: linalg.generic
// CHECK: gpu.func @column_mean_tree_final_1
// CHECK: arith.divf

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
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel"]} ins(%cst : f64) outs(%view : memref<?xf64>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<tree, kernel = 0, threads = 256, vectors = true>} {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    }
    linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction", "parallel"]} ins(%arg0 : memref<?x?xf32>) outs(%view : memref<?xf64>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<tree, kernel = 0, threads = 256, vectors = true>} {
    ^bb0(%in: f32, %out: f64):
      %5 = arith.extf %in : f32 to f64
      %6 = arith.addf %out, %5 : f64
      linalg.yield %6 : f64
    }
    %dim_1 = memref.dim %arg0, %c0 : memref<?x?xf32>
    %3 = arith.index_cast %dim_1 {tgc.group = 0 : i64, tgc.group_kind = "single"} : index to i64
    %4 = arith.sitofp %3 {tgc.group = 0 : i64, tgc.group_kind = "single"} : i64 to f64
    %alloc_2 = memref.alloc(%dim_0) {alignment = 64 : i64} : memref<?xf32>
    linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%view : memref<?xf64>) outs(%alloc_2 : memref<?xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.strategy = #tgc_gpu.strategy<tree, kernel = 0, threads = 256, vectors = true>} {
    ^bb0(%in: f64, %out: f32):
      %5 = arith.divf %in, %4 : f64
      %6 = arith.truncf %5 : f64 to f32
      linalg.yield %6 : f32
    }
    return %alloc_2 : memref<?xf32>
  }
}

// -----

// GEMMs and their epilogue ops stay on the host for the launch plan.
// CHECK-LABEL: func.func @linear
// CHECK-NOT: gpu.launch_func
// CHECK: tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true, epilogue = bias>
// CHECK: tgc_gpu.gemm_epilogue_of
// CHECK-NOT: gpu.launch_func

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @linear(%arg0: memref<?x64xf32>, %arg1: memref<32x64xf32>, %arg2: memref<32xf32>) -> memref<?x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x64xf32>
    %alloc = memref.alloc(%dim) {alignment = 64 : i64} : memref<?x32xf32>
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : memref<?x64xf32>, memref<32x64xf32>) outs(%alloc : memref<?x32xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true, epilogue = bias>} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%alloc, %arg2 : memref<?x32xf32>, memref<32xf32>) outs(%alloc : memref<?x32xf32>) attrs =  {tgc.group = 0 : i64, tgc.group_kind = "single", tgc_gpu.gemm_epilogue_of} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.addf %in, %in_0 : f32
      linalg.yield %0 : f32
    }
    return %alloc : memref<?x32xf32>
  }
}
