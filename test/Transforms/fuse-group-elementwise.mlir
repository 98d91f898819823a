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

// -----

// Diamonds: each level reads the one before along two paths. After each
// fusion the merged op keeps one operand per distinct input and one copy
// of each computation: without, both doubled at every level (2^20 here:
// many minutes of compile time, which the `timeout` fails; a ResNet-18
// training forward reached 72,261 operands).

// RUN: timeout 60 tgc-opt %s --tgc-fuse --tgc-to-linalg --tgc-fuse-group-elementwise --canonicalize --cse -split-input-file | FileCheck %s --check-prefix=DIAMONDS
// DIAMONDS-LABEL: func.func @diamonds
// DIAMONDS: linalg.generic {{.*}} ins(%arg0 : tensor<?x8xf32>)
// DIAMONDS-COUNT-20: math.exp
// DIAMONDS-NOT: math.exp
// DIAMONDS-NOT: linalg.generic
func.func @diamonds(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %a0 = tgc.exp %x : tensor<?x8xf32>
  %b0 = tgc.sin %x : tensor<?x8xf32>
  %p0 = tgc.add %a0, %b0 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a1 = tgc.exp %p0 : tensor<?x8xf32>
  %b1 = tgc.sin %p0 : tensor<?x8xf32>
  %p1 = tgc.add %a1, %b1 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a2 = tgc.exp %p1 : tensor<?x8xf32>
  %b2 = tgc.sin %p1 : tensor<?x8xf32>
  %p2 = tgc.add %a2, %b2 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a3 = tgc.exp %p2 : tensor<?x8xf32>
  %b3 = tgc.sin %p2 : tensor<?x8xf32>
  %p3 = tgc.add %a3, %b3 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a4 = tgc.exp %p3 : tensor<?x8xf32>
  %b4 = tgc.sin %p3 : tensor<?x8xf32>
  %p4 = tgc.add %a4, %b4 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a5 = tgc.exp %p4 : tensor<?x8xf32>
  %b5 = tgc.sin %p4 : tensor<?x8xf32>
  %p5 = tgc.add %a5, %b5 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a6 = tgc.exp %p5 : tensor<?x8xf32>
  %b6 = tgc.sin %p5 : tensor<?x8xf32>
  %p6 = tgc.add %a6, %b6 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a7 = tgc.exp %p6 : tensor<?x8xf32>
  %b7 = tgc.sin %p6 : tensor<?x8xf32>
  %p7 = tgc.add %a7, %b7 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a8 = tgc.exp %p7 : tensor<?x8xf32>
  %b8 = tgc.sin %p7 : tensor<?x8xf32>
  %p8 = tgc.add %a8, %b8 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a9 = tgc.exp %p8 : tensor<?x8xf32>
  %b9 = tgc.sin %p8 : tensor<?x8xf32>
  %p9 = tgc.add %a9, %b9 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a10 = tgc.exp %p9 : tensor<?x8xf32>
  %b10 = tgc.sin %p9 : tensor<?x8xf32>
  %p10 = tgc.add %a10, %b10 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a11 = tgc.exp %p10 : tensor<?x8xf32>
  %b11 = tgc.sin %p10 : tensor<?x8xf32>
  %p11 = tgc.add %a11, %b11 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a12 = tgc.exp %p11 : tensor<?x8xf32>
  %b12 = tgc.sin %p11 : tensor<?x8xf32>
  %p12 = tgc.add %a12, %b12 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a13 = tgc.exp %p12 : tensor<?x8xf32>
  %b13 = tgc.sin %p12 : tensor<?x8xf32>
  %p13 = tgc.add %a13, %b13 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a14 = tgc.exp %p13 : tensor<?x8xf32>
  %b14 = tgc.sin %p13 : tensor<?x8xf32>
  %p14 = tgc.add %a14, %b14 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a15 = tgc.exp %p14 : tensor<?x8xf32>
  %b15 = tgc.sin %p14 : tensor<?x8xf32>
  %p15 = tgc.add %a15, %b15 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a16 = tgc.exp %p15 : tensor<?x8xf32>
  %b16 = tgc.sin %p15 : tensor<?x8xf32>
  %p16 = tgc.add %a16, %b16 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a17 = tgc.exp %p16 : tensor<?x8xf32>
  %b17 = tgc.sin %p16 : tensor<?x8xf32>
  %p17 = tgc.add %a17, %b17 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a18 = tgc.exp %p17 : tensor<?x8xf32>
  %b18 = tgc.sin %p17 : tensor<?x8xf32>
  %p18 = tgc.add %a18, %b18 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a19 = tgc.exp %p18 : tensor<?x8xf32>
  %b19 = tgc.sin %p18 : tensor<?x8xf32>
  %p19 = tgc.add %a19, %b19 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %p19 : tensor<?x8xf32>
}
