// RUN: tgc-opt %s --tgc-fuse --tgc-to-linalg --tgc-fuse-group-elementwise --canonicalize --cse -split-input-file | FileCheck %s

// Softmax: `x - max` and `exp` feed both the sum and the normalization.
// Both consumers get their own copy of the elementwise producers: the
// group is the max, the sum of exp (in f64) and the normalization reading
// the input directly, plus fills and the sum's f64 -> f32 conversion; no
// intermediate [rows, cols] tensor is left between them.

// CHECK-LABEL: func.func @softmax
// CHECK: iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg0 : tensor<?x?xf32>)
// CHECK: arith.maximumf
// CHECK: iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg0, %{{.*}} : tensor<?x?xf32>, tensor<?x1xf32>)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0, %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = tgc.amax %x dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %d = tgc.sub %x, %m : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  %e = tgc.exp %d : tensor<?x?xf32>
  %s = tgc.sum %e dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %p = tgc.div %e, %s : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}

// -----

// A producer that is also returned stays (its copy in the consumer only
// feeds the consumer): the add+relu generic writes the returned value and
// the reduction recomputes it.

// CHECK-LABEL: func.func @returned_producer
// CHECK: %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg0, %arg1
// CHECK: return %[[R]]
func.func @returned_producer(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %a = tgc.add %x, %y : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %r = tgc.relu %a : tensor<?x?xf32>
  %s = tgc.sum %r dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %r, %s : tensor<?x?xf32>, tensor<?xf32>
}

// -----

// Producers of another group are not merged: two matmuls never share a
// group, so the second contraction reads the first one's result.

// CHECK-LABEL: func.func @other_group
// CHECK: %[[A:.*]] = linalg.generic {{.*}}"reduction"]{{.*}} ins(%arg0, %arg1{{.*}}tgc.group = 0
// CHECK: linalg.generic {{.*}}"reduction"]{{.*}} ins(%[[A]], %arg1{{.*}}tgc.group = 1
func.func @other_group(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = tgc.matmul %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %1 = tgc.matmul %0, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// An elementwise producer also returned, read by an elementwise consumer
// of its group: one generic computes both results (two outputs), not the
// producer's generic plus a recomputation in the consumer.

// CHECK-LABEL: func.func @shared_producer
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}} ins(%arg0, %arg1
// CHECK: arith.addf
// CHECK: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#{{[01]}}, %[[R]]#{{[01]}}
func.func @shared_producer(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = tgc.add %x, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  %b = tgc.exp %a : tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}
