// RUN: tgc-opt %s -tgc-symbolize-shapes -tgc-infer-shapes | FileCheck %s
// RUN: tgc-opt %s -tgc-symbolize-shapes="specialize-zero-one=false" -tgc-infer-shapes | FileCheck %s --check-prefix=EMPTY

// A reduction without an identity needs its reduced dims non-empty. With
// 0/1 specialization the size's range [2, inf] implies it (no constraint);
// where sizes may be 0 it is a constraint, so a guard.
// CHECK-LABEL: func.func @amax_needs_elements
// CHECK-NOT: tgc_sym.constrain
// CHECK: return
// EMPTY-LABEL: func.func @amax_needs_elements
// EMPTY: %[[S0:.*]] = tgc_sym.symbol "s0" range [0, inf] from arg 0 dim 0
// EMPTY: tgc_sym.constrain ge [%[[S0]], 1] reason "tgc.amax needs dim 0 to be non-empty (the reduction has no identity)"
// (argmax needs the same: one constraint.)
// EMPTY-NOT: tgc_sym.constrain
// EMPTY: return
func.func @amax_needs_elements(%x: tensor<?x4xf32>) -> (tensor<4xf32>, tensor<4xi64>, tensor<4xf32>) {
  %0 = tgc.amax %x dims [0] : tensor<?x4xf32> -> tensor<4xf32>
  %1 = tgc.argmax %x dim 0 : tensor<?x4xf32> -> tensor<4xi64>
  %2 = tgc.sum %x dims [0] : tensor<?x4xf32> -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi64>, tensor<4xf32>
}
