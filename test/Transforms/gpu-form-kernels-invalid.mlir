// RUN: tgc-opt %s --tgc-gpu-form-kernels -split-input-file -verify-diagnostics

// Host code tgc-gpu-form-kernels cannot move into a kernel fails with a
// diagnostic at the op, never a wrong kernel.

func.func @alloc_in_loop(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{'memref.alloc' op inside a sequential loop cannot run in a GPU kernel}}
    %a = memref.alloc() : memref<4xf32>
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %a[%c0] : memref<4xf32>
  }
  return
}

// -----

func.func @assert_in_loop(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %ok = arith.cmpf oge, %v, %zero : f32
    // expected-error @below {{'cf.assert' op inside a sequential loop cannot run in a GPU kernel}}
    cf.assert %ok, "negative"
  }
  return
}

// -----

func.func @loop_result(%x: memref<?xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{is a sequential loop whose results the host reads}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    %b = arith.addi %a, %c1 : index
    scf.yield %b : index
  }
  return %r : index
}

// -----

func.func @host_if(%x: memref<?xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  // expected-error @below {{'scf.if' op is control flow on the host}}
  scf.if %c {
    memref.store %f, %x[%c0] : memref<?xf32>
  }
  return
}
