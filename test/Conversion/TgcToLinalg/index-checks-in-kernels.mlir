// RUN: tgc-opt %s -tgc-to-linalg=index-checks-in-kernels=true -split-input-file | FileCheck %s

// With index-checks-in-kernels (the GPU pipeline's device-asserts, reduce-
// overhead mode), a gather, index_select or embedding asserts each index it
// reads inside its own generic, before clamping it: no reduction over the
// indices and no top-level cf.assert. scatter_add keeps its reduction.

// CHECK-LABEL: func.func @embedding
// CHECK-NOT: iterator_types = ["reduction"
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[I]], %c0
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[I]], %c50
// CHECK: %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: cf.assert %[[OK]], "tgc.embedding: index out of range"
// CHECK: arith.maxsi %[[I]]
// CHECK: arith.minsi
// CHECK: tensor.extract
// CHECK: linalg.yield
func.func @embedding(%w: tensor<50x16xf32>, %i: tensor<4x7xi64>) -> tensor<4x7x16xf32> {
  %r = tgc.embedding %w, %i : tensor<50x16xf32>, tensor<4x7xi64> -> tensor<4x7x16xf32>
  return %r : tensor<4x7x16xf32>
}

// -----

// CHECK-LABEL: func.func @gather_and_index_select
// CHECK-NOT: iterator_types = ["reduction"
// CHECK: cf.assert %{{.*}}, "tgc.gather: index out of range"
// CHECK: linalg.yield
// CHECK: cf.assert %{{.*}}, "tgc.index_select: index out of range"
// CHECK: linalg.yield
func.func @gather_and_index_select(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %j: tensor<3xi32>) -> (tensor<4x2xf32>, tensor<3x8xf32>) {
  %g = tgc.gather %x, %i dim = 1 : tensor<4x8xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
  %s = tgc.index_select %x, %j dim = 0 : tensor<4x8xf32>, tensor<3xi32> -> tensor<3x8xf32>
  return %g, %s : tensor<4x2xf32>, tensor<3x8xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_add_keeps_its_reduction
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]
// CHECK: cf.assert %{{.*}}, "tgc.scatter_add: index out of range"
func.func @scatter_add_keeps_its_reduction(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>, %s: tensor<4x2xf32>) -> tensor<4x8xf32> {
  %r = tgc.scatter_add %x, %i, %s dim = 1 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
