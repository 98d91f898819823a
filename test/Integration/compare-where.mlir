// Comparisons, where and boolean logic compiled for the CPU against the
// reference interpreter: every predicate on broadcast float and integer
// operands, where with tensor and 0-d branches, and, or, not on i1; one
// compile for two batch sizes.

// RUN: tgc-run %s --calls 0=3x9,2=3x9,3=3x1,4=3x9 --calls 0=10x9,2=10x9,3=10x1,4=10x9 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 2,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @cmp_where(%x: tensor<?x9xf32>, %y: tensor<9xf32>,
                     %i: tensor<?x9xi32> {tgc.input_range = array<i64: -3, 3>},
                     %j: tensor<?x1xi32> {tgc.input_range = array<i64: -3, 3>},
                     %b: tensor<?x9xi1>)
    -> (tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xi1>,
        tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xf32>, tensor<?x9xi32>,
        tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xf32>) {
  %0 = tgc.cmp lt, %x, %y : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xi1>
  %1 = tgc.cmp le, %x, %y : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xi1>
  %2 = tgc.cmp gt, %x, %y : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xi1>
  %3 = tgc.cmp ge, %i, %j : tensor<?x9xi32>, tensor<?x1xi32> -> tensor<?x9xi1>
  %4 = tgc.cmp eq, %i, %j : tensor<?x9xi32>, tensor<?x1xi32> -> tensor<?x9xi1>
  %5 = tgc.cmp ne, %i, %j : tensor<?x9xi32>, tensor<?x1xi32> -> tensor<?x9xi1>
  %6 = tgc.where %0, %x, %y : tensor<?x9xi1>, tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xf32>
  %7 = tgc.where %4, %i, %j : tensor<?x9xi1>, tensor<?x9xi32>, tensor<?x1xi32> -> tensor<?x9xi32>
  %8 = tgc.logical_and %b, %0 : tensor<?x9xi1>
  %9 = tgc.logical_or %b, %4 : tensor<?x9xi1>
  %10 = tgc.logical_not %b : tensor<?x9xi1>
  %zero = tgc.constant dense<0.0> : tensor<f32>
  %11 = tgc.where %b, %x, %zero : tensor<?x9xi1>, tensor<?x9xf32>, tensor<f32> -> tensor<?x9xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
    : tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xi1>,
      tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xf32>, tensor<?x9xi32>,
      tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xi1>, tensor<?x9xf32>
}
