// RUN: tgc-opt %s -tgc-order-loops -split-input-file | FileCheck %s

// A matmul runs i, k, j: the inner loop walks rows of B and C.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @matmul(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf32>, tensor<64x32xf32>) outs(%c : tensor<?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

// x W^T (linear): both inputs walk k contiguously; the dot product stays
// innermost.
// CHECK-LABEL: func.func @linear
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
func.func @linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

// A convolution (n, f, oh, ow, c, kh, kw): the input walks ow + kw
// contiguously, the output ow, the filter kw; ow (parallel) wins the tie
// and goes innermost.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d2 + d4, d5 + d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}, #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
func.func @conv(%x: tensor<?x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>,
                       affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                       affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<?x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<?x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x8x8x8xf32>
  return %0 : tensor<?x8x8x8xf32>
}

// -----

// A strided convolution: ow steps the input by 2, so kw (the filter's and
// the input's contiguous loop) stays innermost.
// CHECK-LABEL: func.func @conv_stride2
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @conv_stride2(%x: tensor<?x4x17x17xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>,
                       affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                       affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<?x4x17x17xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<?x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x8x8x8xf32>
  return %0 : tensor<?x8x8x8xf32>
}

// -----

// A row sum: the rows are strided, so the reduction stays innermost; an
// elementwise generic (no reduction) is never touched.
// CHECK-LABEL: func.func @row_sum
// CHECK: iterator_types = ["parallel", "reduction"]
func.func @row_sum(%x: tensor<?x64xf32>, %o: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x64xf32>) outs(%o : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
