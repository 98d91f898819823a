// RUN: tgc-opt %s --tgc-infer-shapes | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --tgc-symbolize-shapes --tgc-infer-shapes | tgc-opt | FileCheck %s --check-prefix=SYMBOLIC

// Without tgc-symbolize-shapes the argument's size is an unbacked symbol,
// first needed inside the scf.if's then-branch and used again in the
// else-branch and after the if. It is created at the function's entry, so
// it dominates every use (it was created in the then-branch: the IR did
// not verify).
// CHECK-LABEL: func.func @branches
// CHECK:         %[[R:.*]] = tgc_sym.symbol "u1" range [0, inf]
// CHECK:         %[[U:.*]] = tgc_sym.symbol "u0" range [0, inf]
// CHECK:         scf.if
// CHECK:           tgc.exp
// CHECK-NEXT:      tgc_sym.bind %{{.*}} [%[[U]], 4]
// CHECK:         } else {
// CHECK:           tgc.neg
// CHECK-NEXT:      tgc_sym.bind %{{.*}} [%[[U]], 4]
// CHECK:         }
// CHECK-NEXT:    tgc_sym.bind %{{.*}} [%[[R]], 4]
// CHECK:         tgc.relu
// CHECK-NEXT:    tgc_sym.bind %{{.*}} [%[[U]], 4]
// SYMBOLIC-LABEL: func.func @branches
// SYMBOLIC:         %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
// SYMBOLIC:         tgc.exp
// SYMBOLIC-NEXT:    tgc_sym.bind %{{.*}} [%[[S0]], 4]
// SYMBOLIC:         tgc.neg
// SYMBOLIC-NEXT:    tgc_sym.bind %{{.*}} [%[[S0]], 4]
func.func @branches(%a: tensor<?x4xf32>, %c: i1) -> tensor<?x4xf32> {
  %r = scf.if %c -> tensor<?x4xf32> {
    %e = tgc.exp %a : tensor<?x4xf32>
    scf.yield %e : tensor<?x4xf32>
  } else {
    %n = tgc.neg %a : tensor<?x4xf32>
    scf.yield %n : tensor<?x4xf32>
  }
  %m = tgc.relu %a : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
