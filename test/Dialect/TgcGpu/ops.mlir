// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s -mlir-print-op-generic | tgc-opt | FileCheck %s

// The tgc_gpu attributes round-trip, set where the dialect allows them.

#mm = affine_map<(m, n, k) -> (m, k)>
#mk = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func @gemm
// CHECK: tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true, epilogue = bias_relu, tf32 = true>
// CHECK: tgc_gpu.gemm_epilogue_of
func.func @gemm(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#mm, #mk, #mn],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
      attrs = {tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true, epilogue = bias_relu, tf32 = true>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x16xf32>) outs(%c : memref<4x16xf32>)
      attrs = {tgc_gpu.gemm_epilogue_of} {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @residual
// CHECK: #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false, epilogue = bias_residual>
// CHECK: #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false, epilogue = residual>
func.func @residual(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#mm, #mk, #mn],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
      attrs = {tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false, epilogue = bias_residual>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#mm, #mk, #mn],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
      attrs = {tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = false, epilogue = residual>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func @batched
// CHECK: #tgc_gpu.gemm<batch = [0], m = [1, 2], n = 3, k = 4, trans_a = true, trans_b = false>
func.func @batched(%a: memref<2x3x5x7xf32>, %b: memref<2x7x6xf32>, %c: memref<2x3x5x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, i, j, n, k) -> (b, i, j, k)>,
                                   affine_map<(b, i, j, n, k) -> (b, k, n)>,
                                   affine_map<(b, i, j, n, k) -> (b, i, j, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x3x5x7xf32>, memref<2x7x6xf32>) outs(%c : memref<2x3x5x6xf32>)
      attrs = {tgc_gpu.gemm = #tgc_gpu.gemm<batch = [0], m = [1, 2], n = 3, k = 4, trans_a = true, trans_b = false>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func @strategies
// CHECK: tgc_gpu.strategy = #tgc_gpu.strategy<flat, kernel = 0, threads = 256, vector = 4>
// CHECK: tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 1, threads = 128, vectors = true, registers = true>
// CHECK: tgc_gpu.strategy = #tgc_gpu.strategy<loop, kernel = 2, threads = 256>
func.func @strategies(%x: memref<4x16xf32>, %n: index) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x16xf32>) outs(%x : memref<4x16xf32>)
      attrs = {tgc_gpu.strategy = #tgc_gpu.strategy<flat, kernel = 0, threads = 256, vector = 4>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x16xf32>) outs(%x : memref<4x16xf32>)
      attrs = {tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 1, threads = 128, vectors = true, registers = true>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  } {tgc_gpu.strategy = #tgc_gpu.strategy<loop, kernel = 2, threads = 256>}
  return
}

// CHECK-LABEL: func @launch
// CHECK: tgc_gpu.vector_align = 16
// CHECK: tgc_gpu.operand_access = array<i32: 1, 0, 3, 2>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f() kernel {
      gpu.return
    }
    gpu.func @g(%a: memref<4xf32>, %n: index, %b: memref<4xf32>, %c: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch(%a: memref<4xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) {tgc_gpu.vector_align = 16 : i64}
    gpu.launch_func @k::@g blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>, %n : index, %a : memref<4xf32>, %a : memref<4xf32>) {tgc_gpu.operand_access = array<i32: 1, 0, 3, 2>}
    return
  }
}

// CHECK-LABEL: func @conv
// CHECK: tgc_gpu.conv = #tgc_gpu.conv<stride = [2, 1], padding = [1, 0], dilation = [1, 3], groups = 2, tf32 = true>
func.func @conv(%w: memref<4x1x3x3xf32>, %y: memref<1x4x4x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, o, h, w, c, kh, kw) -> (o, c, kh, kw)>,
                                   affine_map<(n, o, h, w, c, kh, kw) -> (n, o, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%w : memref<4x1x3x3xf32>) outs(%y : memref<1x4x4x4xf32>)
      attrs = {tgc_gpu.conv = #tgc_gpu.conv<stride = [2, 1], padding = [1, 0], dilation = [1, 3], groups = 2, tf32 = true>} {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// The backward kinds (tgc.conv2d_backward_input / _weight), with and
// without tf32.
// CHECK-LABEL: func private @conv_kinds
// CHECK-SAME: a = #tgc_gpu.conv<stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1, kind = backward_data>
// CHECK-SAME: b = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 4, tf32 = true, kind = backward_filter>
// CHECK-SAME: c = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1>
func.func private @conv_kinds() attributes {
  a = #tgc_gpu.conv<stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1, kind = backward_data>,
  b = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 4, kind = backward_filter, tf32 = true>,
  c = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1, kind = forward>}
