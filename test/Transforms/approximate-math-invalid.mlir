// RUN: not tgc-opt %s --tgc-approximate-math="ops=sin" 2>&1 | FileCheck %s

// CHECK: error: tgc-approximate-math: no approximation for 'sin' (supported: exp, log, log2, tanh, erf)
func.func @f(%x: f32) -> f32 {
  %s = math.sin %x : f32
  return %s : f32
}
