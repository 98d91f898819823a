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
