// RUN: tgc-opt %s --tgc-gpu-form-kernels -split-input-file -verify-diagnostics

// Host code tgc-gpu-form-kernels cannot move into a kernel, and strategies
// it cannot build, fail with a diagnostic at the op, never a wrong kernel.

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

// -----

// Strategies it is given that it cannot build.

#id = affine_map<(d0) -> (d0)>

func.func @no_strategy(%x: memref<?xf32>) {
  // expected-error @below {{has no tgc_gpu.strategy (run tgc-gpu-select-strategy first)}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%x : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

func.func @two_flat(%x: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%x : memref<?xf32>)
      attrs = {tgc_gpu.strategy = #tgc_gpu.strategy<flat, kernel = 0, threads = 256, vector = 4>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  // expected-error @below {{shares kernel 0 of kind flat with another op; that kind runs one op per kernel}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%x : memref<?xf32>)
      attrs = {tgc_gpu.strategy = #tgc_gpu.strategy<flat, kernel = 0, threads = 256, vector = 4>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

func.func @mixed(%x: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%x : memref<?xf32>)
      attrs = {tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 128>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  // expected-error @below {{is in kernel 0 with another strategy than the op before it}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%x : memref<?xf32>)
      attrs = {tgc_gpu.strategy = #tgc_gpu.strategy<row, kernel = 0, threads = 256>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

func.func @not_a_tree(%x: memref<?xf32>) {
  // expected-error @below {{is in tree kernel 0, which is not a fill, a tree reduction and its epilogues}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%x : memref<?xf32>)
      attrs = {tgc_gpu.strategy = #tgc_gpu.strategy<tree, kernel = 0, threads = 256>} {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

func.func @loop_without_strategy(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{has no tgc_gpu.strategy of kind loop (run tgc-gpu-select-strategy first)}}
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %x[%i] : memref<?xf32>
  }
  return
}

// -----

// expected-error @below {{has control flow; the GPU path needs a straight-line function}}
func.func @control_flow(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}
