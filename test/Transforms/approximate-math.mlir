// RUN: tgc-opt %s --tgc-approximate-math -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tgc-opt %s --tgc-approximate-math="ops=tanh" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=TANH

// f32 exp, log, tanh and erf become arith ops (no math op left to call
// libm for); f64 and log1p stay math ops.

// CHECK-LABEL: func.func @f32
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: arith.mulf
// CHECK: return
// TANH-LABEL: func.func @f32
// TANH: math.exp
// TANH: math.log
// TANH-NOT: math.tanh
// TANH: math.erf
func.func @f32(%x: f32) -> (f32, f32, f32, f32) {
  %e = math.exp %x : f32
  %l = math.log %x : f32
  %t = math.tanh %x : f32
  %r = math.erf %x : f32
  return %e, %l, %t, %r : f32, f32, f32, f32
}

// -----

// CHECK-LABEL: func.func @kept
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.log1p %{{.*}} : f32
func.func @kept(%x: f64, %y: f32) -> (f64, f32) {
  %e = math.exp %x : f64
  %l = math.log1p %y : f32
  return %e, %l : f64, f32
}
