// RUN: tgc-opt %s -tgc-to-linalg -split-input-file | FileCheck %s

// A reduction is a linalg.generic with reduction iterators whose output
// has the kept dims; keepdim restores the reduced dim with expand_shape.
// f32 sums accumulate in f64 (a sum of 10^6 f32 terms in f32 loses 3-4
// digits) and round once.
// CHECK-LABEL: func.func @sum_keepdim
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x?xf32>) -> tensor<4x1xf32>
// CHECK: %[[ZERO:.*]] = arith.constant {{.*}}0.000000e+00 : f64
// CHECK: %[[FILL:.*]] = linalg.fill {{.*}}ins(%[[ZERO]] : f64) outs(%{{.*}} : tensor<4xf64>)
// CHECK: %[[SUM:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x?xf32>) outs(%[[FILL]] : tensor<4xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf %{{.*}} : f64
// CHECK: %[[ROUNDED:.*]] = linalg.generic
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: tensor.expand_shape %[[ROUNDED]] {{\[\[}}0, 1]] output_shape [4, 1] {{.*}}: tensor<4xf32> into tensor<4x1xf32>
func.func @sum_keepdim(%x: tensor<4x?xf32>) -> tensor<4x1xf32> {
  %r = tgc.sum %x dims [1] keepdim : tensor<4x?xf32> -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

// f16 accumulates in f32 and rounds once.
// CHECK-LABEL: func.func @sum_f16_all
// CHECK: linalg.generic {{{.*}}iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<?x8xf16>) outs(%{{.*}} : tensor<f32>)
// CHECK: ^bb0(%[[IN:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK: %[[EXT:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: arith.addf %[[ACC]], %[[EXT]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %{{.*}} : tensor<f16>
func.func @sum_f16_all(%x: tensor<?x8xf16>) -> tensor<f16> {
  %r = tgc.sum %x dims [0, 1] : tensor<?x8xf16> -> tensor<f16>
  return %r : tensor<f16>
}

// -----

// Integer sums stay in the element type (wrap-around).
// CHECK-LABEL: func.func @sum_i32
// CHECK: linalg.generic {{{.*}}iterator_types = ["reduction", "parallel"]}
// CHECK: ^bb0(%{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT: arith.addi
// CHECK-NOT: linalg.generic
// CHECK: return %{{.*}} : tensor<5xi32>
func.func @sum_i32(%x: tensor<3x5xi32>) -> tensor<5xi32> {
  %r = tgc.sum %x dims [0] : tensor<3x5xi32> -> tensor<5xi32>
  return %r : tensor<5xi32>
}

// -----

// The count of a `?` dim comes from tensor.dim.
// CHECK-LABEL: func.func @mean_dynamic
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?xf32>)
// CHECK: %[[D0:.*]] = tensor.dim {{.*}}%[[X]], %c0
// CHECK: tensor.empty(%[[D0]]) {{.*}}: tensor<?xf64>
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: %[[D1:.*]] = tensor.dim {{.*}}%[[X]], %c1
// CHECK: %[[N:.*]] = arith.index_cast %[[D1]] {{.*}}: index to i64
// CHECK: %[[NF:.*]] = arith.sitofp %[[N]] {{.*}}: i64 to f64
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<?xf64>)
// CHECK: arith.divf %{{.*}}, %[[NF]] : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @mean_dynamic(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %r = tgc.mean %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// amax propagates NaN (arith.maximumf) and has no identity: a `?` reduced
// dim is checked to be non-empty.
// CHECK-LABEL: func.func @amax
// CHECK: %[[D:.*]] = tensor.dim
// CHECK: %[[NE:.*]] = arith.cmpi ne, %[[D]], %c0
// CHECK: cf.assert %[[NE]], "tgc.amax: cannot reduce over an empty dimension
// CHECK: %[[NEGINF:.*]] = arith.constant {{.*}}0xFF800000 : f32
// CHECK: linalg.fill {{.*}}ins(%[[NEGINF]] : f32)
// CHECK: arith.maximumf
func.func @amax(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %r = tgc.amax %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @amin_i64
// CHECK-NOT: cf.assert
// CHECK: arith.constant {{.*}}9223372036854775807 : i64
// CHECK: arith.minsi
func.func @amin_i64(%x: tensor<3x5xi64>) -> tensor<3xi64> {
  %r = tgc.amin %x dims [1] : tensor<3x5xi64> -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

// var: the mean first, then the squared deviations, divided by N - c when
// positive (else 0: inf or NaN, as PyTorch).
// CHECK-LABEL: func.func @var_bf16
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>)
// CHECK: %[[M2:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %[[MEAN]] : tensor<4x8xbf16>, tensor<4xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: %[[C:.*]] = arith.constant {{.*}}1 : i64
// CHECK: %[[POS:.*]] = arith.cmpi sgt, %[[N:.*]], %[[C]] {{.*}}: i64
// CHECK: %[[DIFF:.*]] = arith.subi %[[N]], %[[C]] {{.*}}: i64
// CHECK: %[[DIV:.*]] = arith.select %[[POS]], %[[DIFF]], %{{.*}} {{.*}}: i64
// CHECK: %[[DIVF:.*]] = arith.sitofp %[[DIV]]
// CHECK: linalg.generic {{.*}} ins(%[[M2]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xbf16>)
// CHECK: arith.divf %{{.*}}, %[[DIVF]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @var_bf16(%x: tensor<4x8xbf16>) -> tensor<4xbf16> {
  %r = tgc.var %x dims [1] : tensor<4x8xbf16> -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @norm_2
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: math.sqrt
func.func @norm_2(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %r = tgc.norm %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @norm_inf
// CHECK: cf.assert
// CHECK: math.absf
// CHECK: arith.maximumf
func.func @norm_inf(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %r = tgc.norm %x dims [1] {p = 0x7FF0000000000000 : f64} : tensor<4x?xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @norm_neg_inf
// CHECK: math.absf
// CHECK: arith.minimumf
func.func @norm_neg_inf(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  %r = tgc.norm %x dims [1] {p = 0xFFF0000000000000 : f64} : tensor<4x3xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// p = 0 counts the non-zero elements (NaN counts: une).
// CHECK-LABEL: func.func @norm_0
// CHECK: arith.cmpf une
// CHECK: arith.select
// CHECK: arith.addf
func.func @norm_0(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  %r = tgc.norm %x dims [1] {p = 0.0 : f64} : tensor<4x3xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @norm_1_f16
// CHECK: arith.extf
// CHECK: math.absf
// CHECK: arith.addf
// CHECK: arith.truncf
func.func @norm_1_f16(%x: tensor<4x3xf16>) -> tensor<4xf16> {
  %r = tgc.norm %x dims [1] {p = 1.0 : f64} : tensor<4x3xf16> -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @norm_3
// CHECK-DAG: %[[P:.*]] = arith.constant {{.*}}3.000000e+00 : f64
// CHECK: math.absf
// CHECK: math.powf %{{.*}}, %[[P]]
// CHECK: %[[INV:.*]] = arith.constant {{.*}}0.33333333333333331 : f64
// CHECK: math.powf %{{.*}}, %[[INV]]
func.func @norm_3(%x: tensor<4x3xf32>) -> tensor<f32> {
  %r = tgc.norm %x dims [0, 1] {p = 3.0 : f64} : tensor<4x3xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// argmax: (value, index) pairs; NaN beats numbers, ties go to the lower
// index.
// CHECK-LABEL: func.func @argmax
// CHECK: cf.assert
// CHECK: %[[R:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x?xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xi64>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[EARLIER:.*]] = arith.cmpi slt, %[[I64]], %[[IDX]] : i64
// CHECK: arith.cmpf ogt, %[[IN]], %[[ACC]]
// CHECK: arith.cmpf oeq, %[[IN]], %[[ACC]]
// CHECK: arith.cmpf uno, %[[IN]], %[[IN]]
// CHECK: arith.cmpf uno, %[[ACC]], %[[ACC]]
// CHECK: %[[TAKE:.*]] = arith.select
// CHECK: arith.select %[[TAKE]], %[[IN]], %[[ACC]] : f32
// CHECK: arith.select %[[TAKE]], %[[I64]], %[[IDX]] : i64
// CHECK: return %[[R]]#1 : tensor<4xi64>
func.func @argmax(%x: tensor<4x?xf32>) -> tensor<4xi64> {
  %r = tgc.argmax %x dim 1 : tensor<4x?xf32> -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @argmin_i32_keepdim
// CHECK-NOT: cf.assert
// CHECK: arith.constant {{.*}}2147483647 : i32
// CHECK: linalg.generic {{{.*}}iterator_types = ["reduction", "parallel"]}
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 5] {{.*}}: tensor<5xi64> into tensor<1x5xi64>
func.func @argmin_i32_keepdim(%x: tensor<3x5xi32>) -> tensor<1x5xi64> {
  %r = tgc.argmin %x dim 0 keepdim : tensor<3x5xi32> -> tensor<1x5xi64>
  return %r : tensor<1x5xi64>
}

// -----

// CHECK-LABEL: func.func @max_keepdim
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK: arith.cmpf ogt
// CHECK: %[[V:.*]] = tensor.expand_shape %[[R]]#0 {{.*}}: tensor<4xf32> into tensor<4x1xf32>
// CHECK: %[[I:.*]] = tensor.expand_shape %[[R]]#1 {{.*}}: tensor<4xi64> into tensor<4x1xi64>
// CHECK: return %[[V]], %[[I]]
func.func @max_keepdim(%x: tensor<4x?xf32>) -> (tensor<4x1xf32>, tensor<4x1xi64>) {
  %v, %i = tgc.max %x dim 1 keepdim : tensor<4x?xf32> -> tensor<4x1xf32>, tensor<4x1xi64>
  return %v, %i : tensor<4x1xf32>, tensor<4x1xi64>
}

// -----

// CHECK-LABEL: func.func @min_f64
// CHECK: arith.constant {{.*}}0x7FF0000000000000 : f64
// CHECK: arith.cmpf olt
// CHECK: return %{{.*}}#0, %{{.*}}#1 : tensor<3xf64>, tensor<3xi64>
func.func @min_f64(%x: tensor<3x5xf64>) -> (tensor<3xf64>, tensor<3xi64>) {
  %v, %i = tgc.min %x dim 1 : tensor<3x5xf64> -> tensor<3xf64>, tensor<3xi64>
  return %v, %i : tensor<3xf64>, tensor<3xi64>
}

// -----

// topk: for each position of the other dims, a scan over `dim` (`?` here)
// inserting into a sorted buffer of k slots; k <= size is checked.
// CHECK-LABEL: func.func @topk_dynamic
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x3xf32>)
// CHECK: %[[N:.*]] = tensor.dim {{.*}}%[[X]], %c0
// CHECK: %[[VALS:.*]] = linalg.fill {{.*}} -> tensor<2x3xf32>
// CHECK: %[[IDXS:.*]] = linalg.fill {{.*}} -> tensor<2x3xi64>
// CHECK: %[[FITS:.*]] = arith.cmpi sge, %[[N]], %c2
// CHECK: cf.assert %[[FITS]], "tgc.topk: k is larger than the size of the dimension"
// CHECK: %[[R:.*]]:2 = scf.for %[[J:arg[0-9]+]] = %{{.*}} to %c3 {{.*}} iter_args(%{{.*}} = %[[VALS]], %{{.*}} = %[[IDXS]])
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] {{.*}} -> (tensor<2x3xf32>, tensor<2x3xi64>, index)
// CHECK: tensor.extract %[[X]]
// CHECK: arith.cmpf ugt
// CHECK: scf.if
// CHECK: scf.for
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK: arith.minsi
// The loop over the other dim (one row each) may run its iterations at once.
// CHECK: } {{{.*}}tgc.parallel}
// CHECK: return %[[R]]#0, %[[R]]#1 : tensor<2x3xf32>, tensor<2x3xi64>
func.func @topk_dynamic(%x: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = tgc.topk %x k = 2 dim = 0 : tensor<?x3xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// smallest first; NaN is the largest value (ult after an ord check).
// CHECK-LABEL: func.func @topk_smallest
// CHECK-NOT: cf.assert
// CHECK: scf.for
// CHECK: arith.cmpf ord
// CHECK: arith.cmpf ult
func.func @topk_smallest(%x: tensor<10xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %v, %i = tgc.topk %x k = 4 dim = 0 {largest = false} : tensor<10xf32> -> tensor<4xf32>, tensor<4xi64>
  return %v, %i : tensor<4xf32>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @topk_i64
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
func.func @topk_i64(%x: tensor<2x?xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>) {
  %v, %i = tgc.topk %x k = 3 dim = 1 : tensor<2x?xi64> -> tensor<2x3xi64>, tensor<2x3xi64>
  return %v, %i : tensor<2x3xi64>, tensor<2x3xi64>
}

// -----

// A 0-d input reduces over nothing.
// CHECK-LABEL: func.func @sum_rank0
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = []}
// CHECK: return %{{.*}} : tensor<f32>
func.func @sum_rank0(%x: tensor<f32>) -> tensor<f32> {
  %r = tgc.sum %x dims [0] : tensor<f32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A result type more precise than the operands: a tensor.cast at the end.
// CHECK-LABEL: func.func @sum_refined_result
// CHECK: linalg.generic
// CHECK: %[[S:.*]] = linalg.generic
// CHECK: arith.truncf
// CHECK: tensor.cast %[[S]] {{.*}}: tensor<?xf32> to tensor<4xf32>
func.func @sum_refined_result(%x: tensor<?x8xf32>) -> tensor<4xf32> {
  %r = tgc.sum %x dims [1] : tensor<?x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
