// RUN: tgc-opt %s -tgc-outline-identical-kernels -split-input-file | FileCheck %s
// RUN: tgc-opt %s -tgc-outline-identical-kernels=every-kernel -split-input-file | FileCheck %s --check-prefix=EVERY

// Two kernels that differ only in the buffers they read and write (two
// layers): one private function (noinline, so that LLVM compiles it once;
// internal linkage in LLVM, so that it is not exported) called by both with their own buffers; constants are cloned into it. A
// kernel without a twin stays.

// CHECK-LABEL: func.func @layers
// CHECK-SAME: (%[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>, %[[C:.*]]: memref<8xf32>)
// CHECK:         call @layers__kernel0(%[[A]], %[[B]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:    call @layers__kernel0(%[[B]], %[[C]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:    scf.for
// CHECK:           arith.mulf
// CHECK:         return
// CHECK:       func.func private @layers__kernel0(%[[X:.*]]: memref<8xf32>, %[[Y:.*]]: memref<8xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"], tgc.kernel_function}
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[C8]]
// CHECK:           %[[V:.*]] = memref.load %[[X]][%[[I]]]
// CHECK:           %[[W:.*]] = arith.addf %[[V]], %[[TWO]]
// CHECK:           memref.store %[[W]], %[[Y]][%[[I]]]
// CHECK:         return

// With every-kernel the kernel without a twin is a function too: the entry
// keeps the calls.
// EVERY-LABEL: func.func @layers
// EVERY:         call @layers__kernel0(%{{.*}}, %{{.*}})
// EVERY-NEXT:    call @layers__kernel0(%{{.*}}, %{{.*}})
// EVERY-NEXT:    call @layers__kernel1(%{{.*}}, %{{.*}})
// EVERY-NEXT:    return
// EVERY:       func.func private @layers__kernel1({{.*}}) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"], tgc.kernel_function}
// EVERY:         arith.mulf
// EVERY:       func.func private @layers__kernel0(
// EVERY:         arith.addf
func.func @layers(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %w = arith.addf %v, %two : f32
    memref.store %w, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %b[%i] : memref<8xf32>
    %w = arith.addf %v, %two : f32
    memref.store %w, %c[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %c[%i] : memref<8xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %a[%i] : memref<8xf32>
  }
  return
}

// -----

// Not the same kernel: another constant (3.0 against 2.0), or one buffer
// read and written where the other kernel reads one and writes another.

// CHECK-LABEL: func.func @different
// CHECK-NOT:     call
// CHECK-COUNT-3: scf.for
// CHECK-NOT:     func.func private
func.func @different(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %w = arith.addf %v, %two : f32
    memref.store %w, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %w = arith.addf %v, %three : f32
    memref.store %w, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %w = arith.addf %v, %two : f32
    memref.store %w, %a[%i] : memref<8xf32>
  }
  return
}

// -----

// Parallel regions (the OpenMP lowering outlines each one; identical ones
// are one function here already).

// CHECK-LABEL: func.func @parallel
// CHECK:         call @parallel__kernel0(%arg0, %arg1)
// CHECK-NEXT:    call @parallel__kernel0(%arg1, %arg0)
// CHECK:       func.func private @parallel__kernel0
// CHECK:         omp.parallel
// CHECK:           omp.wsloop
func.func @parallel(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        %v = memref.load %a[%i] : memref<64xf32>
        memref.store %v, %b[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        %v = memref.load %b[%i] : memref<64xf32>
        memref.store %v, %a[%i] : memref<64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// The CPU pipeline runs this pass twice: on the kernels' `scf.forall`s
// right after bufferization (so that the loop passes and the lowering see
// each set of twins once), and with every-kernel before the lowering to
// LLVM. Kernel formation's group numbers differ between layers and are
// dropped: the two foralls are twins.

// CHECK-LABEL: func.func @foralls
// CHECK-NEXT:    call @foralls__kernel0(%arg0, %arg1)
// CHECK-NEXT:    call @foralls__kernel0(%arg1, %arg0)
// CHECK-NEXT:    return
// CHECK:       func.func private @foralls__kernel0
// CHECK-NOT:     tgc.group
// CHECK:         scf.forall
// CHECK-NOT:     tgc.group
// CHECK:       return
func.func @foralls(%a: memref<64xf32>, %b: memref<64xf32>) {
  scf.forall (%i) in (64) {
    %v = memref.load %a[%i] : memref<64xf32>
    %w = arith.negf %v {tgc.group = 1 : i64, tgc.group_kind = "elementwise"} : f32
    memref.store %w, %b[%i] : memref<64xf32>
  } {tgc.group = 1 : i64}
  scf.forall (%i) in (64) {
    %v = memref.load %b[%i] : memref<64xf32>
    %w = arith.negf %v {tgc.group = 2 : i64, tgc.group_kind = "elementwise"} : f32
    memref.store %w, %a[%i] : memref<64xf32>
  } {tgc.group = 2 : i64}
  return
}

// -----

// A function an earlier run outlined is the kernel: a later run leaves it
// whole and drops the C interface requested for every function since.

// EVERY-LABEL: func.func @entry
// EVERY-NEXT:    call @entry__kernel0(%arg0)
// EVERY-NEXT:    return
// EVERY:       func.func private @entry__kernel0(%arg0: memref<64xf32>) attributes {tgc.kernel_function}
// EVERY-NEXT:    scf.forall
// EVERY-NOT:   func.func
func.func @entry(%a: memref<64xf32>) attributes {llvm.emit_c_interface} {
  call @entry__kernel0(%a) : (memref<64xf32>) -> ()
  return
}
func.func private @entry__kernel0(%a: memref<64xf32>) attributes {llvm.emit_c_interface, tgc.kernel_function} {
  scf.forall (%i) in (64) {
    %v = memref.load %a[%i] : memref<64xf32>
    memref.store %v, %a[%i] : memref<64xf32>
  }
  return
}
