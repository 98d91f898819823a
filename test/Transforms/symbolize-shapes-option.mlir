// RUN: tgc-opt %s -tgc-symbolize-shapes | FileCheck %s
// RUN: tgc-opt %s -tgc-symbolize-shapes="example-shapes=0=6x4,1=6" | FileCheck %s --check-prefix=EXAMPLE
// RUN: tgc-opt %s -tgc-symbolize-shapes="example-shapes=0=6x4,1=6 default-policy=static" | FileCheck %s --check-prefix=STATIC

// Without an example a dynamic size gets a symbol with no hint (and no duck
// sizing); the example-shapes option gives hints, duck sizing, and makes
// the static policy possible.

// CHECK: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
// CHECK: %[[S1:.*]] = tgc_sym.symbol "s1" range [2, inf] from arg 1 dim 0
// CHECK: tgc_sym.bind %arg1 [%[[S1]]]
// EXAMPLE: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] hint 6 from arg 0 dim 0
// EXAMPLE: tgc_sym.bind %arg0 [%[[S0]], 4]
// EXAMPLE: tgc_sym.bind %arg1 [%[[S0]]]
// STATIC-NOT: tgc_sym.symbol
// STATIC: tgc_sym.bind %arg0 [6, 4]
// STATIC: tgc_sym.bind %arg1 [6]
func.func @no_example(%x: tensor<?x4xf32>, %y: tensor<?xf32>) {
  return
}
