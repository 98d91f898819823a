// RUN: tgc-opt %s -tgc-mark-result-buffers -split-input-file | FileCheck %s

// A heap buffer an entry point returns as it is gets its result position;
// a buffer returned twice, the first. The arena, views, arguments and
// buffers of another type are left alone.

// CHECK-LABEL: func.func @entry
// CHECK:         %[[A:.*]] = memref.alloc(%arg1) {tgc.result_index = 1 : i32} : memref<?x4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() {alignment = 64 : i64, tgc.result_index = 0 : i32} : memref<8xf32>
// CHECK:         %[[ARENA:.*]] = memref.alloc(%arg1) {tgc.arena} : memref<?xi8>
// CHECK:         %[[C:.*]] = memref.alloc() : memref<2x8xf32>
// CHECK:         return %[[B]], %[[A]], %[[B]], %arg0, %{{.*}}, %[[V:.*]] :
func.func @entry(%arg0: memref<8xf32>, %arg1: index) -> (memref<8xf32>, memref<?x4xf32>, memref<8xf32>, memref<8xf32>, memref<?xi8>, memref<8xf32, strided<[1], offset: 8>>) {
  %a = memref.alloc(%arg1) : memref<?x4xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
  %arena = memref.alloc(%arg1) {tgc.arena} : memref<?xi8>
  %c = memref.alloc() : memref<2x8xf32>
  %v = memref.subview %c[1, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  return %b, %a, %b, %arg0, %arena, %v : memref<8xf32>, memref<?x4xf32>, memref<8xf32>, memref<8xf32>, memref<?xi8>, memref<8xf32, strided<[1], offset: 8>>
}

// -----

// A function something calls is not an entry point: its result positions
// are not the caller's. A private function neither. A buffer that is
// freed (even on one path) is not the caller's either.

// CHECK-LABEL: func.func @callee
// CHECK-NOT:     tgc.result_index
// CHECK-LABEL: func.func private @helper
// CHECK-NOT:     tgc.result_index
// CHECK-LABEL: func.func @caller
// CHECK:         memref.alloc() {tgc.result_index = 1 : i32} : memref<4xf32>
// CHECK:         memref.alloc() : memref<4xf32>
// CHECK-NOT:     tgc.result_index
func.func @callee() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  return %a : memref<4xf32>
}
func.func private @helper() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  return %a : memref<4xf32>
}
func.func @caller(%c: i1) -> (memref<4xf32>, memref<4xf32>, memref<4xf32>) {
  %x = func.call @callee() : () -> memref<4xf32>
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  scf.if %c {
    memref.dealloc %b : memref<4xf32>
  }
  return %x, %a, %b : memref<4xf32>, memref<4xf32>, memref<4xf32>
}

// -----

// A returned reshape of a fresh buffer (`logits.view(B, T, V)`): the
// buffer becomes an allocation of the returned shape, tagged, which the
// kernels write through the inverse reshape; the caller's memory is the
// result, without a copy. The dynamic sizes come from the buffer's: an
// expanded group's dynamic dim is the size over the group's static ones,
// a collapsed dim the product of its group.

// CHECK-LABEL: func.func @expanded
// CHECK-SAME: (%[[N:.*]]: index, %[[V:.*]]: f32)
// CHECK:   %[[C4:.*]] = arith.constant 4 : index
// CHECK:   %[[B:.*]] = arith.divui %[[N]], %[[C4]] : index
// CHECK:   %[[OUT:.*]] = memref.alloc(%[[B]]) {alignment = 64 : i64, tgc.result_index = 0 : i32} : memref<?x4x16xf32>
// CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1], [2]] : memref<?x4x16xf32> into memref<?x16xf32>
// CHECK:   memref.store %[[V]], %[[FLAT]]
// CHECK:   %[[E:.*]] = memref.expand_shape %[[FLAT]]
// CHECK:   return %[[E]]
func.func @expanded(%n: index, %v: f32) -> memref<?x4x16xf32> {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?x16xf32>
  memref.store %v, %a[%c0, %c0] : memref<?x16xf32>
  %b = arith.divui %n, %n : index
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%b, 4, 16] : memref<?x16xf32> into memref<?x4x16xf32>
  return %e : memref<?x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @collapsed
// CHECK-SAME: (%[[N:.*]]: index, %[[V:.*]]: f32)
// CHECK:   %[[C4:.*]] = arith.constant 4 : index
// CHECK:   %[[ROWS:.*]] = arith.muli %[[N]], %[[C4]] : index
// CHECK:   %[[OUT:.*]] = memref.alloc(%[[ROWS]]) {tgc.result_index = 0 : i32} : memref<?x8xf32>
// CHECK:   %[[FULL:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [%[[N]], 4, 8] : memref<?x8xf32> into memref<?x4x8xf32>
// CHECK:   memref.store %[[V]], %[[FULL]]
func.func @collapsed(%n: index, %v: f32) -> memref<?x8xf32> {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%n) : memref<?x4x8xf32>
  memref.store %v, %a[%c0, %c0, %c0] : memref<?x4x8xf32>
  %c = memref.collapse_shape %a [[0, 1], [2]] : memref<?x4x8xf32> into memref<?x8xf32>
  return %c : memref<?x8xf32>
}

// -----

// Two dynamic sizes in one group of the expanded side: the collapsed
// buffer's size does not say each; left to the copy.

// CHECK-LABEL: func.func @two_dynamic
// CHECK-NOT: tgc.result_index
func.func @two_dynamic(%n: index, %m: index) -> memref<?xf32> {
  %a = memref.alloc(%n, %m) : memref<?x?xf32>
  %c = memref.collapse_shape %a [[0, 1]] : memref<?x?xf32> into memref<?xf32>
  return %c : memref<?xf32>
}
