// RUN: tgc-translate --tgc-to-launch-plan -split-input-file -verify-diagnostics %s

// What the launch plan cannot express is an error at the op.

#id = affine_map<(d0) -> (d0)>
func.func @left(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  // expected-error @below {{is left on the host}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return %y : memref<4xf32>
}
tgc_guard.guard_set for @left {
}

// -----

// expected-error @below {{has no guard set; run the frontend first}}
func.func @unguarded(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  return %y : memref<4xf32>
}

// -----

func.func @returns_arg(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @below {{returns a value that is not a fresh buffer (result 0); the GPU path needs one allocation per result}}
  return %x : memref<4xf32>
}
tgc_guard.guard_set for @returns_arg {
}

// -----

// expected-error @below {{the module has 2 functions; choose one with --tgc-launch-plan-function}}
module {
  func.func @a() {
    return
  }
  func.func @b() {
    return
  }
}

// -----

// expected-error @below {{the module has no function with a body}}
module {
  func.func private @decl()
}
