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
// CHECK:       func.func private @layers__kernel0(%[[X:.*]]: memref<8xf32>, %[[Y:.*]]: memref<8xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
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
// EVERY:       func.func private @layers__kernel1({{.*}}) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
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
