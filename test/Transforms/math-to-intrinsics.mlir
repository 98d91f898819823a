// RUN: tgc-opt %s --tgc-math-to-intrinsics | FileCheck %s

// Ops with an exact LLVM intrinsic become it (LLVM emits instructions for
// fma, floor, sqrt and vectorizes them); expm1, log1p, tanh and erf stay
// math ops for libm (LLVM's expansions of expm1/log1p lose accuracy near 0).

// CHECK-LABEL: func.func @intrinsics
// CHECK: llvm.intr.fma
// CHECK: llvm.intr.floor
// CHECK: llvm.intr.sqrt
// CHECK: llvm.intr.fabs
// CHECK: llvm.intr.exp
// CHECK: llvm.intr.log
// CHECK-NOT: math.fma
// CHECK-NOT: math.floor
func.func @intrinsics(%x: f32, %y: f32, %z: f32) -> (f32, f32, f32, f32, f32, f32) {
  %0 = math.fma %x, %y, %z : f32
  %1 = math.floor %x : f32
  %2 = math.sqrt %x : f32
  %3 = math.absf %x : f32
  %4 = math.exp %x : f32
  %5 = math.log %x : f32
  return %0, %1, %2, %3, %4, %5 : f32, f32, f32, f32, f32, f32
}

// CHECK-LABEL: func.func @libm
// CHECK: math.expm1
// CHECK: math.log1p
// CHECK: math.tanh
// CHECK: math.erf
func.func @libm(%x: f32) -> (f32, f32, f32, f32) {
  %0 = math.expm1 %x : f32
  %1 = math.log1p %x : f32
  %2 = math.tanh %x : f32
  %3 = math.erf %x : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}

// Vectors too.
// CHECK-LABEL: func.func @vector
// CHECK: llvm.intr.fma(%{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.fma %x, %x, %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// rsqrt as 1/sqrt (glibc has no rsqrtf; upstream's math-expand-ops did this
// with a greedy rewrite of the whole module, 0.2 s for a 24-layer model).
// CHECK-LABEL: func.func @rsqrt
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(dense<1.000000e+00> : vector<8xf32>)
// CHECK:         %[[ROOT:.*]] = llvm.intr.sqrt(%arg0) : (vector<8xf32>) -> vector<8xf32>
// CHECK:         llvm.fdiv %[[ONE]], %[[ROOT]] : vector<8xf32>
// CHECK-NOT:     math.rsqrt
func.func @rsqrt(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.rsqrt %x : vector<8xf32>
  return %0 : vector<8xf32>
}
