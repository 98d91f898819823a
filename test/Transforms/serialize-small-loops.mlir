// RUN: tgc-opt %s --tgc-serialize-small-loops -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-serialize-small-loops=min-work=64 -split-input-file | FileCheck %s --check-prefix=LOW

// 64 x 64 iterations (4096 < 16384): nested scf.for loops, no parallel
// region. With min-work=64 it stays parallel.

// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK: memref.store
// LOW-LABEL: func.func @small
// LOW: scf.parallel
func.func @small(%m: memref<64x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<64x64xf32>
    scf.reduce
  }
  return
}

// -----

// 32 iterations, each a 1024-iteration inner loop: 32768 >= 16384, parallel.

// CHECK-LABEL: func.func @inner_work
// CHECK: scf.parallel
func.func @inner_work(%m: memref<32x1024xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    scf.for %j = %c0 to %c1024 step %c1 {
      memref.store %v, %m[%i, %j] : memref<32x1024xf32>
    }
    scf.reduce
  }
  return
}

// -----

// 8 x 16 inner iterations (a small matmul row): 4 * 128 = 512, serial.

// CHECK-LABEL: func.func @small_inner
// CHECK-NOT: scf.parallel
// CHECK-COUNT-3: scf.for
func.func @small_inner(%m: memref<4x16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        memref.store %v, %m[%i, %j] : memref<4x16xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// A dynamic bound: the work is unknown, the loop stays parallel.

// CHECK-LABEL: func.func @dynamic
// CHECK: scf.parallel
func.func @dynamic(%m: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A dynamic inner bound: unknown work, parallel.

// CHECK-LABEL: func.func @dynamic_inner
// CHECK: scf.parallel
func.func @dynamic_inner(%m: memref<4x?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %j = %c0 to %n step %c1 {
      memref.store %v, %m[%i, %j] : memref<4x?xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A reduction (init values) is left to the OpenMP conversion.

// CHECK-LABEL: func.func @reduction
// CHECK: scf.parallel
func.func @reduction(%m: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %x = memref.load %m[%i] : memref<8xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}
