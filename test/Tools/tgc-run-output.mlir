// tgc-run prints a line per result by default (shape, dtype, min, max,
// mean; NaNs counted apart), not every element; --print-results prints the elements (issue
// 23: the README's MLP run printed ~1,080 numbers before its summary).
//
// RUN: %python %S/../Integration/Inputs/npy.py %t.x.npy f4 2x3 1 -2 3 nan 5 -6
// RUN: %python %S/../Integration/Inputs/npy.py %t.y.npy f4 2x3 1 1 1 1 1 1
// RUN: tgc-run %s --inputs %t.x.npy,%t.y.npy --check reference | FileCheck %s
// RUN: tgc-run %s --inputs %t.x.npy,%t.y.npy --print-results | FileCheck %s --check-prefix=ELEMENTS
// RUN: tgc-run %s --calls 0=0x3,1=0x3 | FileCheck %s --check-prefix=EMPTY
//
// CHECK:      call 0 (2x3, 2x3): compiled, run {{.*}} ms, arena 0 bytes, max abs err 0
// CHECK-NEXT: result 0 (call 0): tensor<2x3xf32>: min -5, max 6, mean 1.2, 1 NaN
// CHECK-NEXT: result 1 (call 0): tensor<2x3xi1>: min 0, max 1, mean 0.5
// CHECK-NEXT: compiled @f 1 time(s) for 1 call(s)
// CHECK:      reference check: ok
//
// ELEMENTS:      result 0 (call 0): {{\[\[}}2,   -1,   4],
// ELEMENTS-NEXT: [nan,   6,   -5]]
// ELEMENTS-NEXT: result 1 (call 0): {{\[\[}}1,   0,   1],
// ELEMENTS-NEXT: [0,   1,   0]]
//
// EMPTY: result 0 (call 0): tensor<0x3xf32>: empty

func.func @f(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xi1>) {
  %s = tgc.add %x, %y : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %p = tgc.cmp gt, %s, %y : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xi1>
  return %s, %p : tensor<?x3xf32>, tensor<?x3xi1>
}
