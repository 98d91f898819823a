// RUN: tgc-opt %s --tgc-parallelize-marked-loops -split-input-file | FileCheck %s

// A scatter_add's loop nest after bufferization: its two tgc.parallel loops
// (those before `dim`) become one scf.parallel; the loop along `dim`
// (tgc.parallel_atomic_add) stays a sequential scf.for inside it.

// CHECK-LABEL: func.func @scatter
// CHECK: scf.parallel (%[[N:.*]], %[[C:.*]]) = (%c0, %c0) to (%{{.*}}, %c4) step (%c1, %c1) {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c9 step %c1 {
// CHECK:        memref.load %{{.*}}[%[[N]], %[[C]], %[[J]]]
// CHECK:        memref.store %{{.*}}, %{{.*}}[%[[N]], %[[C]], %{{.*}}]
// CHECK:      } {tgc.parallel_atomic_add}
// CHECK-NOT: tgc.parallel}
func.func @scatter(%out: memref<?x4x16xf32>, %idx: memref<?x4x9xi64>, %src: memref<?x4x9xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %c = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c9 step %c1 {
        %x = memref.load %idx[%i, %c, %j] : memref<?x4x9xi64>
        %t = arith.index_cast %x : i64 to index
        %v = memref.load %src[%i, %c, %j] : memref<?x4x9xf32>
        %o = memref.load %out[%i, %c, %t] : memref<?x4x16xf32>
        %s = arith.addf %o, %v : f32
        memref.store %s, %out[%i, %c, %t] : memref<?x4x16xf32>
      } {tgc.parallel_atomic_add}
    } {tgc.parallel}
  } {tgc.parallel}
  return
}

// -----

// A nest whose inner marked loop's bound is computed in the outer loop is
// parallel over the outer loop only; a marked loop that still carries a
// value (not bufferized) and unmarked loops are left alone.

// CHECK-LABEL: func.func @partial
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%{{.*}}) step (%c1) {
// CHECK:   %[[M:.*]] = memref.load
// CHECK:   scf.for %{{.*}} = %c0 to %[[M]] step %c1 {
// CHECK:   } {tgc.parallel}
// CHECK: scf.for {{.*}} iter_args
// CHECK: } {tgc.parallel}
// CHECK: scf.for
// CHECK-NOT: scf.parallel
func.func @partial(%out: memref<?x?xf32>, %sizes: memref<?xindex>, %n: index, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %m = memref.load %sizes[%i] : memref<?xindex>
    scf.for %j = %c0 to %m step %c1 {
      memref.store %v, %out[%i, %j] : memref<?x?xf32>
    } {tgc.parallel}
  } {tgc.parallel}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %v) -> (f32) {
    %s = arith.addf %a, %v : f32
    scf.yield %s : f32
  } {tgc.parallel}
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %out[%i, %c0] : memref<?x?xf32>
  }
  return %r : f32
}
