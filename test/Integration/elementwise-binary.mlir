// Broadcasting binary ops compiled for the CPU against the reference
// interpreter: float add/sub/mul/div (true, floor, trunc)/pow/maximum/
// minimum/remainder/atan2 with a row, a column and a rank-3 operand
// broadcasting against a dynamic batch, some in f16 and bf16 (@float_ops);
// the integer ops in i64 and i32 with positive and negative divisors
// (Python's floor division and modulus, @int_ops); floor division, trunc
// division and remainder on hand-picked values (signed zeros, division by
// zero, exact multiples) read from .npy files (@special).

// RUN: tgc-run %s --entry float_ops --calls 0=5x9,2=5x1,5=5x9,7=5x9,8=5x1 \
// RUN:   --calls 0=12x9,2=12x1,5=12x9,7=12x9,8=12x1 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=FLOAT
// FLOAT:      "calls": 2,
// FLOAT:      "compiles": 1,
// FLOAT:      "reference_ok": true

// RUN: tgc-run %s --entry int_ops --calls 0=5x9,2=5x1,4=5x9 --calls 0=12x9,2=12x1,4=12x9 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=INT
// INT:      "calls": 2,
// INT:      "compiles": 1,
// INT:      "reference_ok": true

// RUN: %python %S/Inputs/npy.py %t.x.npy f4 2x4 -2.5 1.5 -0.0 0.75 3.0 2.5 1.0 -3.5
// RUN: %python %S/Inputs/npy.py %t.y.npy f4 2x4 2 -2 0.25 -0.5 0 -0.75 -1 3.5
// RUN: tgc-run %s --entry special --inputs %t.x.npy,%t.y.npy --check reference --print-results | FileCheck %s --check-prefix=SPECIAL
// SPECIAL:      result 0 (call 0): {{\[\[}}1.5,   -0.5,   -0,   -0.25],
// SPECIAL-NEXT: [nan,   -0.5,   0,   -0]]
// SPECIAL:      result 1 (call 0): {{\[\[}}-2,   -1,   -0,   -2],
// SPECIAL-NEXT: [inf,   -4,   -1,   -1]]
// SPECIAL:      result 2 (call 0): {{\[\[}}-1,   -0,   -0,   -1],
// SPECIAL-NEXT: [inf,   -3,   -1,   -1]]
// SPECIAL:      reference check: ok

func.func @float_ops(%x: tensor<?x9xf32>, %y: tensor<9xf32>, %c: tensor<?x1xf32>,
                     %p: tensor<9xf32> {tgc.input_range = array<f64: 0.5, 2.0>},
                     %a: tensor<3x1x9xf32>,
                     %h: tensor<?x9xf16>, %hp: tensor<9xf16> {tgc.input_range = array<f64: 0.5, 2.0>},
                     %g: tensor<?x9xbf16>, %gc: tensor<?x1xbf16>)
    -> (tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>,
        tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>,
        tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>, tensor<3x?x9xf32>,
        tensor<?x9xf16>, tensor<?x9xf16>, tensor<?x9xf16>,
        tensor<?x9xbf16>, tensor<?x9xbf16>, tensor<?x9xbf16>) {
  %0 = tgc.add %x, %y : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xf32>
  %1 = tgc.sub %y, %x : tensor<9xf32>, tensor<?x9xf32> -> tensor<?x9xf32>
  %2 = tgc.mul %x, %c : tensor<?x9xf32>, tensor<?x1xf32> -> tensor<?x9xf32>
  %3 = tgc.div %x, %p : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xf32>
  %ax = tgc.abs %x : tensor<?x9xf32>
  %4 = tgc.pow %ax, %y : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xf32>
  %5 = tgc.maximum %x, %c : tensor<?x9xf32>, tensor<?x1xf32> -> tensor<?x9xf32>
  %6 = tgc.minimum %x, %y : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xf32>
  %7 = tgc.remainder %x, %p : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xf32>
  %8 = tgc.atan2 %x, %y : tensor<?x9xf32>, tensor<9xf32> -> tensor<?x9xf32>
  %9 = tgc.div %x, %c rounding = floor : tensor<?x9xf32>, tensor<?x1xf32> -> tensor<?x9xf32>
  %10 = tgc.div %x, %c rounding = trunc : tensor<?x9xf32>, tensor<?x1xf32> -> tensor<?x9xf32>
  %11 = tgc.add %a, %x : tensor<3x1x9xf32>, tensor<?x9xf32> -> tensor<3x?x9xf32>
  %12 = tgc.add %h, %hp : tensor<?x9xf16>, tensor<9xf16> -> tensor<?x9xf16>
  %13 = tgc.div %h, %hp : tensor<?x9xf16>, tensor<9xf16> -> tensor<?x9xf16>
  %14 = tgc.remainder %h, %hp : tensor<?x9xf16>, tensor<9xf16> -> tensor<?x9xf16>
  %15 = tgc.mul %g, %gc : tensor<?x9xbf16>, tensor<?x1xbf16> -> tensor<?x9xbf16>
  %16 = tgc.sub %g, %gc : tensor<?x9xbf16>, tensor<?x1xbf16> -> tensor<?x9xbf16>
  %17 = tgc.maximum %g, %gc : tensor<?x9xbf16>, tensor<?x1xbf16> -> tensor<?x9xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,
         %16, %17
    : tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>,
      tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>,
      tensor<?x9xf32>, tensor<?x9xf32>, tensor<?x9xf32>, tensor<3x?x9xf32>,
      tensor<?x9xf16>, tensor<?x9xf16>, tensor<?x9xf16>,
      tensor<?x9xbf16>, tensor<?x9xbf16>, tensor<?x9xbf16>
}

func.func @int_ops(%x: tensor<?x9xi64> {tgc.input_range = array<i64: -20, 20>},
                   %pos: tensor<9xi64> {tgc.input_range = array<i64: 1, 8>},
                   %neg: tensor<?x1xi64> {tgc.input_range = array<i64: -7, 0>},
                   %e: tensor<9xi64> {tgc.input_range = array<i64: 0, 4>},
                   %i: tensor<?x9xi32> {tgc.input_range = array<i64: -100, 100>},
                   %j: tensor<9xi32> {tgc.input_range = array<i64: 1, 9>})
    -> (tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>,
        tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>,
        tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>,
        tensor<?x9xi32>, tensor<?x9xi32>, tensor<?x9xi32>, tensor<?x9xi32>,
        tensor<?x9xi32>) {
  %0 = tgc.add %x, %pos : tensor<?x9xi64>, tensor<9xi64> -> tensor<?x9xi64>
  %1 = tgc.sub %x, %neg : tensor<?x9xi64>, tensor<?x1xi64> -> tensor<?x9xi64>
  %2 = tgc.mul %x, %neg : tensor<?x9xi64>, tensor<?x1xi64> -> tensor<?x9xi64>
  %3 = tgc.div %x, %pos rounding = floor : tensor<?x9xi64>, tensor<9xi64> -> tensor<?x9xi64>
  %4 = tgc.div %x, %neg rounding = floor : tensor<?x9xi64>, tensor<?x1xi64> -> tensor<?x9xi64>
  %5 = tgc.div %x, %neg rounding = trunc : tensor<?x9xi64>, tensor<?x1xi64> -> tensor<?x9xi64>
  %6 = tgc.remainder %x, %pos : tensor<?x9xi64>, tensor<9xi64> -> tensor<?x9xi64>
  %7 = tgc.remainder %x, %neg : tensor<?x9xi64>, tensor<?x1xi64> -> tensor<?x9xi64>
  %8 = tgc.pow %x, %e : tensor<?x9xi64>, tensor<9xi64> -> tensor<?x9xi64>
  %9 = tgc.maximum %x, %neg : tensor<?x9xi64>, tensor<?x1xi64> -> tensor<?x9xi64>
  %10 = tgc.minimum %x, %pos : tensor<?x9xi64>, tensor<9xi64> -> tensor<?x9xi64>
  %11 = tgc.add %i, %j : tensor<?x9xi32>, tensor<9xi32> -> tensor<?x9xi32>
  %12 = tgc.mul %i, %j : tensor<?x9xi32>, tensor<9xi32> -> tensor<?x9xi32>
  %13 = tgc.div %i, %j rounding = floor : tensor<?x9xi32>, tensor<9xi32> -> tensor<?x9xi32>
  %14 = tgc.div %i, %j rounding = trunc : tensor<?x9xi32>, tensor<9xi32> -> tensor<?x9xi32>
  %15 = tgc.remainder %i, %j : tensor<?x9xi32>, tensor<9xi32> -> tensor<?x9xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15
    : tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>,
      tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>,
      tensor<?x9xi64>, tensor<?x9xi64>, tensor<?x9xi64>,
      tensor<?x9xi32>, tensor<?x9xi32>, tensor<?x9xi32>, tensor<?x9xi32>,
      tensor<?x9xi32>
}

// remainder, floor division and trunc division of x by y.
func.func @special(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = tgc.remainder %x, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %1 = tgc.div %x, %y rounding = floor : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %2 = tgc.div %x, %y rounding = trunc : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
