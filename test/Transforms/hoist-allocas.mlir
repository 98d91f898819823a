// RUN: tgc-opt %s --tgc-hoist-allocas -split-input-file | FileCheck %s

// A fixed-size temporary of a parallel loop body moves to the entry of the
// omp.parallel region (one buffer per thread) and its alloca_scope is
// inlined.

// CHECK-LABEL: func.func @per_thread
// CHECK: omp.parallel {
// CHECK-NEXT: %[[T:.*]] = memref.alloca() : memref<1x128xf32>
// CHECK-NEXT: omp.wsloop
// CHECK-NOT: memref.alloca_scope
// CHECK: memref.store %{{.*}}, %[[T]]
func.func @per_thread(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.alloca_scope {
          %t = memref.alloca() : memref<1x128xf32>
          memref.store %v, %t[%c0, %c0] : memref<1x128xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Outside any parallel region (a serial kernel), a temporary inside a loop
// moves before the kernel (the loop nest in the function's body), between
// a stack save before it and a restore after it: the stack holds one
// kernel's buffers at a time (at the function's entry, the buffers of a
// long chain of kernels added up and overflowed it).

// CHECK-LABEL: func.func @sequential
// CHECK: %[[S:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: %[[T:.*]] = memref.alloca() : memref<16xf32>
// CHECK-NEXT: scf.for
// CHECK-NOT: memref.alloca
// CHECK: memref.store %{{.*}}, %[[T]]
// CHECK: llvm.intr.stackrestore %[[S]]
// CHECK: %[[S2:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: %[[T2:.*]] = memref.alloca() : memref<32xf32>
// CHECK-NEXT: scf.for
// CHECK: memref.store %{{.*}}, %[[T2]]
// CHECK: llvm.intr.stackrestore %[[S2]]
func.func @sequential(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.alloca_scope {
      %t = memref.alloca() : memref<16xf32>
      memref.store %v, %t[%c0] : memref<16xf32>
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.alloca_scope {
      %t = memref.alloca() : memref<32xf32>
      memref.store %v, %t[%c0] : memref<32xf32>
    }
  }
  return
}

// -----

// A dynamically sized alloca stays where it is, in its scope (the stack is
// released every iteration).

// CHECK-LABEL: func.func @dynamic
// CHECK: scf.for
// CHECK-NEXT: memref.alloca_scope
// CHECK-NEXT: memref.alloca(%{{.*}}) : memref<?xf32>
func.func @dynamic(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.alloca_scope {
      %t = memref.alloca(%i) : memref<?xf32>
      memref.store %v, %t[%c0] : memref<?xf32>
    }
  }
  return
}
