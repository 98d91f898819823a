// RUN: tgc-opt %s --tgc-lower-strided-copies -split-input-file | FileCheck %s

// A copy into a strided view (one piece of a stack): a parallel loop over
// the outer dims around a serial loop over the innermost, loads and stores.

// CHECK-LABEL: func.func @into_view
// CHECK-NOT: memref.copy
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c2, %c7) step (%c1, %c1)
// CHECK: scf.for %[[K:.*]] = %c0 to %c7{{.*}} step %c1
// CHECK: %[[V:.*]] = memref.load %arg0[%[[I]], %[[J]], %[[K]]] : memref<2x7x7xf32>
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]], %[[K]]] : memref<2x7x7xf32, strided<[98, 14, 2], offset: 1>>
func.func @into_view(%src: memref<2x7x7xf32>, %dst: memref<2x7x14xf32>) {
  %view = memref.subview %dst[0, 0, 1] [2, 7, 7] [1, 1, 2] : memref<2x7x14xf32> to memref<2x7x7xf32, strided<[98, 14, 2], offset: 1>>
  memref.copy %src, %view : memref<2x7x7xf32> to memref<2x7x7xf32, strided<[98, 14, 2], offset: 1>>
  return
}

// -----

// Dynamic sizes: the loop bounds are the source's dims.

// CHECK-LABEL: func.func @dynamic
// CHECK: %[[D0:.*]] = memref.dim %arg0, %c0
// CHECK: %[[D1:.*]] = memref.dim %arg0, %c1
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%[[D0]]) step (%c1)
// CHECK: scf.for %{{.*}} = %c0 to %[[D1]] step %c1
func.func @dynamic(%src: memref<?x?xf32, strided<[?, 1], offset: ?>>, %dst: memref<?x?xf32>) {
  memref.copy %src, %dst : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<?x?xf32>
  return
}

// -----

// Inside a kernel's parallel loop: serial loops only.

// CHECK-LABEL: func.func @in_kernel
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load
// CHECK-NOT: memref.copy
func.func @in_kernel(%src: memref<4x8x8xf32>, %dst: memref<4x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %s = memref.subview %src[%i, 0, 0] [1, 8, 8] [1, 1, 1] : memref<4x8x8xf32> to memref<8x8xf32, strided<[8, 1], offset: ?>>
    %d = memref.subview %dst[%i, 0, 0] [1, 8, 8] [1, 1, 2] : memref<4x8x16xf32> to memref<8x8xf32, strided<[16, 2], offset: ?>>
    memref.copy %s, %d : memref<8x8xf32, strided<[8, 1], offset: ?>> to memref<8x8xf32, strided<[16, 2], offset: ?>>
    scf.reduce
  }
  return
}

// -----

// Contiguous copies stay: memref-to-llvm makes them one memcpy. So do
// rank-1 copies' contiguous cases; a strided rank-1 copy is a parallel
// loop of its own.

// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy %arg0, %arg1 : memref<4x8xf32> to memref<4x8xf32>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32>
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c4) step (%c1)
// CHECK-NEXT: memref.load %{{.*}}[%[[I]]] : memref<4xf32, strided<[8]>>
func.func @contiguous(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<8xf32>, %d: memref<4xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  %row = memref.subview %a[1, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  memref.copy %row, %c : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32>
  %col = memref.subview %a[0, 0] [4, 1] [1, 1] : memref<4x8xf32> to memref<4xf32, strided<[8]>>
  memref.copy %col, %d : memref<4xf32, strided<[8]>> to memref<4xf32>
  return
}
