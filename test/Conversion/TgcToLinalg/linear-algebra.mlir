// RUN: tgc-opt %s -tgc-to-linalg -split-input-file | FileCheck %s

// f16 products accumulate in f32 (linalg.matmul casts its operands to the
// output type) and round once.
// CHECK-LABEL: func.func @matmul_2d_f16
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x64xf16>, %[[B:[a-z0-9]+]]: tensor<64x32xf16>)
// CHECK: %[[M:.*]] = tensor.dim {{.*}}%[[A]], %c0
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[M]]) {{.*}}: tensor<?x32xf32>
// CHECK: %[[FILL:.*]] = linalg.fill {{.*}}outs(%[[EMPTY]] : tensor<?x32xf32>)
// CHECK: %[[P:.*]] = linalg.matmul {{.*}}ins(%[[A]], %[[B]] : tensor<?x64xf16>, tensor<64x32xf16>) outs(%[[FILL]] : tensor<?x32xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<?x32xf32>) outs(%{{.*}} : tensor<?x32xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_2d_f16(%a: tensor<?x64xf16>, %b: tensor<64x32xf16>) -> tensor<?x32xf16> {
  %r = tgc.matmul %a, %b : tensor<?x64xf16>, tensor<64x32xf16> -> tensor<?x32xf16>
  return %r : tensor<?x32xf16>
}

// -----

// 1-D x 1-D: [1, k] x [k, 1], the unit dims collapsed away.
// CHECK-LABEL: func.func @matmul_dot
// CHECK: %[[L:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, %{{.*}}] {{.*}}: tensor<?xf32> into tensor<1x?xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [%{{.*}}, 1] {{.*}}: tensor<?xf32> into tensor<?x1xf32>
// CHECK: %[[P:.*]] = linalg.matmul {{.*}}ins(%[[L]], %[[R]] : tensor<1x?xf32>, tensor<?x1xf32>)
// CHECK: tensor.collapse_shape %[[P]] [] {{.*}}: tensor<1x1xf32> into tensor<f32>
func.func @matmul_dot(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<f32> {
  %r = tgc.matmul %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @matmul_vec_mat
// CHECK: tensor.expand_shape {{.*}}: tensor<4xf32> into tensor<1x4xf32>
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<1x4xf32>, tensor<2x4x5xf32>) outs(%{{.*}} : tensor<2x1x5xf32>)
// CHECK: tensor.collapse_shape %[[P]] {{\[\[}}0], [1, 2]] {{.*}}: tensor<2x1x5xf32> into tensor<2x5xf32>
func.func @matmul_vec_mat(%a: tensor<4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x5xf32> {
  %r = tgc.matmul %a, %b : tensor<4xf32>, tensor<2x4x5xf32> -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// Equal batch sizes (no static 1 against another size): batch_matmul.
// CHECK-LABEL: func.func @matmul_batch
// CHECK: %[[B:.*]] = tensor.dim {{.*}}, %c0
// CHECK: tensor.empty(%[[B]]) {{.*}}: tensor<?x3x5xf32>
// CHECK: linalg.batch_matmul {{.*}}ins(%{{.*}}, %{{.*}} : tensor<?x3x4xf32>, tensor<?x4x5xf32>)
func.func @matmul_batch(%a: tensor<?x3x4xf32>, %b: tensor<?x4x5xf32>) -> tensor<?x3x5xf32> {
  %r = tgc.matmul %a, %b : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
  return %r : tensor<?x3x5xf32>
}

// -----

// Broadcast batch dims: a static 1 reads index 0.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<8x3x4x6xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_broadcast(%a: tensor<8x1x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<8x3x4x6xf32> {
  %r = tgc.matmul %a, %b : tensor<8x1x4x5xf32>, tensor<3x5x6xf32> -> tensor<8x3x4x6xf32>
  return %r : tensor<8x3x4x6xf32>
}

// -----

// Integer products wrap in the element type.
// CHECK-LABEL: func.func @matmul_i64
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK-NOT: linalg.generic
func.func @matmul_i64(%a: tensor<2x3x4xi64>, %b: tensor<4x5xi64>) -> tensor<2x3x5xi64> {
  %r = tgc.matmul %a, %b : tensor<2x3x4xi64>, tensor<4x5xi64> -> tensor<2x3x5xi64>
  return %r : tensor<2x3x5xi64>
}

// -----

// CHECK-LABEL: func.func @bmm
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x3x4xf32>, %[[B:[a-z0-9]+]]: tensor<2x4x5xf32>)
// CHECK: %[[P:.*]] = linalg.batch_matmul {{.*}}ins(%[[A]], %[[B]] : tensor<?x3x4xf32>, tensor<2x4x5xf32>) outs(%{{.*}} : tensor<2x3x5xf32>)
// CHECK: return %[[P]] : tensor<2x3x5xf32>
func.func @bmm(%a: tensor<?x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %r = tgc.bmm %a, %b : tensor<?x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// -----

// x W^T over the leading dims as they are (16 rows in the last), then the
// bias added in f32 before the one rounding.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @linear_bf16
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<?x16x5xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS]], #{{.*}}]
// CHECK-SAME: ins(%[[P]], %{{.*}} : tensor<?x16x5xf32>, tensor<5xbf16>) outs(%{{.*}} : tensor<?x16x5xbf16>)
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: arith.truncf
func.func @linear_bf16(%x: tensor<?x16x8xbf16>, %w: tensor<5x8xbf16>, %b: tensor<5xbf16>) -> tensor<?x16x5xbf16> {
  %r = tgc.linear %x, %w, %b : tensor<?x16x8xbf16>, tensor<5x8xbf16>, tensor<5xbf16> -> tensor<?x16x5xbf16>
  return %r : tensor<?x16x5xbf16>
}

// -----

// Fewer than 16 rows in the last leading dim (attention's projections over
// a sequence-first [T, B, C]): the leading dims collapsed into one, the
// product and its bias over [T B, out], expanded back.
// CHECK-LABEL: func.func @linear_few_rows
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] {{.*}} : tensor<?x3x8xf32> into tensor<?x8xf32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %arg1 : tensor<?x8xf32>, tensor<5x8xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[P]], %arg2 : tensor<?x5xf32>, tensor<5xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1], [2]] output_shape [%{{.*}}, 3, 5] {{.*}} : tensor<?x5xf32> into tensor<?x3x5xf32>
// CHECK: return %[[Y]]
func.func @linear_few_rows(%x: tensor<?x3x8xf32>, %w: tensor<5x8xf32>, %b: tensor<5xf32>) -> tensor<?x3x5xf32> {
  %r = tgc.linear %x, %w, %b : tensor<?x3x8xf32>, tensor<5x8xf32>, tensor<5xf32> -> tensor<?x3x5xf32>
  return %r : tensor<?x3x5xf32>
}

// -----

// Two `?` leading dims (one `?` would expand into two) and a `?` row count:
// as they are.
// CHECK-LABEL: func.func @linear_not_collapsed
// CHECK-NOT: tensor.collapse_shape
// CHECK: outs(%{{.*}} : tensor<?x?x2x5xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: outs(%{{.*}} : tensor<2x?x5xf32>)
// CHECK-NOT: tensor.expand_shape
func.func @linear_not_collapsed(%x: tensor<?x?x2x8xf32>, %w: tensor<5x8xf32>, %y: tensor<2x?x8xf32>) -> (tensor<?x?x2x5xf32>, tensor<2x?x5xf32>) {
  %r = tgc.linear %x, %w : tensor<?x?x2x8xf32>, tensor<5x8xf32> -> tensor<?x?x2x5xf32>
  %s = tgc.linear %y, %w : tensor<2x?x8xf32>, tensor<5x8xf32> -> tensor<2x?x5xf32>
  return %r, %s : tensor<?x?x2x5xf32>, tensor<2x?x5xf32>
}

// -----

// CHECK-LABEL: func.func @linear_vector_no_bias
// CHECK: %[[P:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<?x8xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[P]]
func.func @linear_vector_no_bias(%x: tensor<8xf32>, %w: tensor<?x8xf32>) -> tensor<?xf32> {
  %r = tgc.linear %x, %w : tensor<8xf32>, tensor<?x8xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Cholesky–Banachiewicz in scf loops over the batch, rows, columns and the
// dot product; a pivot that is not positive aborts.
// CHECK-LABEL: func.func @cholesky_f32
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x4x4xf16>)
// CHECK: %[[B:.*]] = tensor.dim {{.*}}%[[A]], %c0
// CHECK: %[[L0:.*]] = linalg.fill {{.*}} -> tensor<?x4x4xf32>
// CHECK: %[[F0:.*]] = linalg.fill {{.*}} -> tensor<i1>
// CHECK: %[[L:[0-9a-z_]+]]:2 = scf.for %[[BI:arg[0-9]+]] = %{{.*}} to %[[B]] {{.*}} iter_args(%{{.*}} = %[[L0]], %{{.*}} = %[[F0]]) -> (tensor<?x4x4xf32>, tensor<i1>)
// CHECK: scf.for %[[I:arg[0-9]+]] = %{{.*}} to %c4
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %c1
// CHECK: scf.for %[[J:arg[0-9]+]] = %{{.*}} to %[[I1]]
// CHECK: %[[DOT:.*]] = scf.for %{{.*}} = %{{.*}} to %[[J]] {{.*}} -> (f32)
// CHECK: %[[AIJ:.*]] = tensor.extract %[[A]][%[[BI]], %[[I]], %[[J]]]
// CHECK: %[[AIJF:.*]] = arith.extf %[[AIJ]] : f16 to f32
// CHECK: %[[REST:.*]] = arith.subf %[[AIJF]], %[[DOT]]
// CHECK: %[[DIAG:.*]] = arith.cmpi eq, %[[I]], %[[J]]
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[REST]]
// CHECK: %[[OFF:.*]] = arith.xori %[[DIAG]]
// CHECK: %[[OK:.*]] = arith.ori %[[OFF]], %[[POS]]
// A failed pivot clears the flag (and only ever clears it), checked after
// the loops, so the batch loop's iterations may run at once.
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]]
// CHECK: scf.if %[[BAD]] -> (tensor<i1>)
// CHECK: tensor.insert %false into %{{.*}}[] : tensor<i1>
// CHECK: math.sqrt %[[REST]]
// CHECK: arith.divf %[[REST]]
// CHECK: tensor.insert %{{.*}}[%[[BI]], %[[I]], %[[J]]]
// CHECK: } {{{.*}}tgc.parallel}
// CHECK: %[[FLAG:.*]] = tensor.extract %[[L]]#1[] {{.*}}: tensor<i1>
// CHECK: cf.assert %[[FLAG]], "tgc.cholesky: the input is not positive-definite"
// CHECK: linalg.generic {{.*}} ins(%[[L]]#0 : tensor<?x4x4xf32>) outs(%{{.*}} : tensor<?x4x4xf16>)
// CHECK: arith.truncf
func.func @cholesky_f32(%a: tensor<?x4x4xf16>) -> tensor<?x4x4xf16> {
  %r = tgc.cholesky %a : tensor<?x4x4xf16>
  return %r : tensor<?x4x4xf16>
}

// -----

// upper reads the upper triangle (as LAPACK's potrf with 'U') and returns
// the transposed factor.
// CHECK-LABEL: func.func @cholesky_upper_f64
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x?xf64>)
// CHECK: %[[N:.*]] = tensor.dim {{.*}}%[[A]], %c0
// CHECK: %[[L:[0-9a-z_]+]]:2 = scf.for %[[I:arg[0-9]+]] = %{{.*}} to %[[N]]
// CHECK: scf.for %[[J:arg[0-9]+]] =
// CHECK: tensor.extract %[[A]][%[[J]], %[[I]]] : tensor<?x?xf64>
// CHECK: cf.assert
// CHECK: linalg.transpose ins(%[[L]]#0 : tensor<?x?xf64>) outs(%{{.*}} : tensor<?x?xf64>) permutation = [1, 0]
func.func @cholesky_upper_f64(%a: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = tgc.cholesky %a upper : tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
