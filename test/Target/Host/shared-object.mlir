// RUN: tgc-opt %s --tgc-cpu-pipeline | tgc-translate --tgc-to-shared-object -o %t.so
// RUN: %python %S/Inputs/call_shared_object.py %t.so | FileCheck %s

// A shared object is self-contained: loaded into a process that has neither
// libomp nor the JIT, its guard accepts a 3x256 input, rejects 1x256 (sizes
// 0 and 1 are specialized away), and its C-interface entry computes
// exp(x * s) (checked elementwise in the script).

// CHECK: guard on 3x256: -1
// CHECK: guard on 1x256: rejected
// CHECK: result sizes: 3x256
// CHECK: max relative error below 1e-6: True
func.func @scale_exp(%x: tensor<?x256xf32>, %s: tensor<256xf32>) -> tensor<?x256xf32> {
  %m = tgc.mul %x, %s : tensor<?x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %e = tgc.exp %m : tensor<?x256xf32>
  return %e : tensor<?x256xf32>
}
