// RUN: tgc-opt %s -tgc-to-linalg -split-input-file | FileCheck %s

// The index range is asserted by a reduction over the index tensor before
// the gather; inside, the index is clamped to [0, size - 1] and, the input
// size being `?` (possibly 0), the read is guarded.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[TO_SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>, %[[I:.*]]: tensor<4x2xi64>)
// CHECK: %[[N:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: %[[ALL:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[TO_SCALAR]]], iterator_types = ["reduction", "reduction"]} ins(%[[I]] : tensor<4x2xi64>)
// CHECK: %[[IDX:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: arith.cmpi sge, %[[IDX]]
// CHECK: arith.cmpi slt, %[[IDX]], %[[N]] : index
// CHECK: %[[OK:.*]] = tensor.extract %[[ALL]][]
// CHECK: cf.assert %[[OK]], "tgc.gather: index out of range"
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi sgt, %[[N]], %{{.*}}
// CHECK: %[[E:.*]] = tensor.empty() {{.*}}: tensor<4x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<4x2xi64>) outs(%[[E]] : tensor<4x2xf32>)
// CHECK: ^bb0(%[[V:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[J]], %{{.*}} : index
// CHECK: %[[C:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK: %[[R:.*]] = scf.if %[[NONEMPTY]] -> (f32) {
// CHECK: %[[X0:.*]] = tensor.extract %[[X]][%[[ROW]], %[[C]]] : tensor<4x?xf32>
// CHECK: scf.yield %[[X0]] : f32
// CHECK: } else {
// CHECK: linalg.yield %[[R]] : f32
func.func @gather(%x: tensor<4x?xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  %r = tgc.gather %x, %i dim = 1 : tensor<4x?xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

// Static input sizes: no guard. An index size other than `dim` that is
// `?` is checked against the input's at run time, and that coordinate is
// clamped too.
// CHECK-LABEL: func.func @gather_dynamic_index
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<2x?xi32>)
// CHECK: %[[M:.*]] = tensor.dim {{.*}}%[[I]], %{{.*}}
// CHECK: %[[C8:.*]] = arith.constant {{.*}}8 : index
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %[[M]], %[[C8]] {{.*}}: index
// CHECK: cf.assert %[[FITS]], "tgc.gather: index is larger than the input in a dimension other than dim"
// CHECK: cf.assert %{{.*}}, "tgc.gather: index out of range"
// CHECK: %[[E:.*]] = tensor.empty(%[[M]]) {{.*}}: tensor<2x?xf32>
// CHECK: linalg.generic
// CHECK: %[[ROW:.*]] = arith.minsi
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[COL:.*]] = arith.minsi
// CHECK-NOT: scf.if
// CHECK: tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<4x8xf32>
func.func @gather_dynamic_index(%x: tensor<4x8xf32>, %i: tensor<2x?xi32>) -> tensor<2x?xf32> {
  %r = tgc.gather %x, %i dim = 0 : tensor<4x8xf32>, tensor<2x?xi32> -> tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// CHECK-DAG: #[[SEL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @index_select
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf16>, %[[I:.*]]: tensor<?xi64>)
// CHECK: %[[D0:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: cf.assert %{{.*}}, "tgc.index_select: index out of range"
// CHECK: %[[K:.*]] = tensor.dim {{.*}}%[[I]], %{{.*}}
// CHECK: %[[E:.*]] = tensor.empty(%[[D0]], %[[K]]) {{.*}}: tensor<?x?xf16>
// CHECK: linalg.generic {indexing_maps = [#[[SEL]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<?xi64>) outs(%[[E]] : tensor<?x?xf16>)
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: arith.minsi
// CHECK-NOT: scf.if
// CHECK: tensor.extract %[[X]][%[[ROW]], %{{.*}}] : tensor<?x8xf16>
func.func @index_select(%x: tensor<?x8xf16>, %i: tensor<?xi64>) -> tensor<?x?xf16> {
  %r = tgc.index_select %x, %i dim = 1 : tensor<?x8xf16>, tensor<?xi64> -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}

// -----

// A rank-0 index keeps `dim` with size 1.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @index_select_scalar
// CHECK: tensor.empty() {{.*}}: tensor<1x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #{{.*}}]
func.func @index_select_scalar(%x: tensor<4x8xf32>, %i: tensor<i64>) -> tensor<1x8xf32> {
  %r = tgc.index_select %x, %i dim = 0 : tensor<4x8xf32>, tensor<i64> -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// CHECK-DAG: #[[IDS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[W:.*]]: tensor<?x64xbf16>, %[[I:.*]]: tensor<?x16xi64>)
// CHECK: %[[ROWS:.*]] = tensor.dim {{.*}}%[[W]], %{{.*}}
// CHECK: cf.assert %{{.*}}, "tgc.embedding: index out of range"
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi sgt, %[[ROWS]], %{{.*}}
// CHECK: %[[B:.*]] = tensor.dim {{.*}}%[[I]], %{{.*}}
// CHECK: %[[E:.*]] = tensor.empty(%[[B]]) {{.*}}: tensor<?x16x64xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[IDS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<?x16xi64>) outs(%[[E]] : tensor<?x16x64xbf16>)
// CHECK: %[[ROW:.*]] = arith.minsi
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: scf.if %[[NONEMPTY]] -> (bf16)
// CHECK: tensor.extract %[[W]][%[[ROW]], %[[COL]]] : tensor<?x64xbf16>
func.func @embedding(%w: tensor<?x64xbf16>, %i: tensor<?x16xi64>) -> tensor<?x16x64xbf16> {
  %r = tgc.embedding %w, %i : tensor<?x64xbf16>, tensor<?x16xi64> -> tensor<?x16x64xbf16>
  return %r : tensor<?x16x64xbf16>
}

// -----

// scatter_add is a loop nest over the index carrying the result: the base
// (an argument) copied first, the index range asserted, each update
// skipped where the index is out of range. The loops before `dim` are
// tgc.parallel; `dim`'s loop and those after it may hit one element twice.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[B:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4x3xi64>, %[[S:.*]]: tensor<4x5xf32>)
// CHECK: cf.assert %{{.*}}, "tgc.scatter_add: index out of range"
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[B]]) {{.*}}: tensor<4x8xf32>
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %c4 step %{{.*}} iter_args(%{{.*}} = %[[COPY]])
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %c3 step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK:     %[[X:.*]] = tensor.extract %[[I]][%[[R]], %[[J]]] : tensor<4x3xi64>
// CHECK:     %[[T:.*]] = arith.index_cast %[[X]] : i64 to index
// CHECK:     scf.if %{{.*}} -> (tensor<4x8xf32>)
// CHECK:       %[[V:.*]] = tensor.extract %[[S]][%[[R]], %[[J]]] : tensor<4x5xf32>
// CHECK:       %[[OLD:.*]] = tensor.extract %[[ACC]][%[[R]], %[[T]]] : tensor<4x8xf32>
// CHECK:       %[[SUM:.*]] = arith.addf %[[OLD]], %[[V]] : f32
// CHECK:       tensor.insert %[[SUM]] into %[[ACC]][%[[R]], %[[T]]]
// CHECK:   } {tgc.parallel_atomic_add}
// CHECK: } {{{.*}}tgc.parallel}
func.func @scatter_add(%b: tensor<4x8xf32>, %i: tensor<4x3xi64>, %s: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %0 = tgc.scatter_add %b, %i, %s dim = 1 : tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x5xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A base that is a view of an argument (x.reshape(-1).scatter_add(...);
// the reshape in a fusion group of its own) is copied too: updated in place
// it added into the caller's tensor.
// CHECK-LABEL: func.func @scatter_add_into_a_view
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[FLAT]]) {{.*}}: tensor<9xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[COPY]])
func.func @scatter_add_into_a_view(%b: tensor<3x3xf32>, %i: tensor<2xi64>, %s: tensor<2xf32>) -> tensor<9xf32> {
  %0 = tgc.reshape %b : tensor<3x3xf32> -> tensor<9xf32>
  %1 = tgc.scatter_add %0, %i, %s dim = 0 : tensor<9xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<9xf32>
  return %1 : tensor<9xf32>
}

// -----

// The index_add form over dynamic sizes: src's length along dim is
// asserted equal to the index's, the positions visited are the index's,
// and integers add with arith.addi. A splat base (the zeros of an
// embedding's backward) is rebuilt in the group (a fill, or a small
// constant) and updated without a copy of the caller's data.
// CHECK-LABEL: func.func @index_add
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: cf.assert %[[EQ]], "tgc.scatter_add: index, src and base sizes do not match"
// CHECK: cf.assert %{{.*}}, "tgc.scatter_add: index out of range"
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     arith.addi %{{.*}}, %{{.*}} : i64
// CHECK:   } {tgc.parallel_atomic_add}
// CHECK: } {{{.*}}tgc.parallel_atomic_add}
func.func @index_add(%ids: tensor<?xi32>, %g: tensor<?x16xi64>) -> tensor<10x16xi64> {
  %z = tgc.full 0 : i64 : tensor<10x16xi64>
  %0 = tgc.scatter_add %z, %ids, %g dim = 0 : tensor<10x16xi64>, tensor<?xi32>, tensor<?x16xi64> -> tensor<10x16xi64>
  return %0 : tensor<10x16xi64>
}
