// tgc.convert compiled for the CPU against the reference interpreter:
// float to integer (truncation toward zero), float narrowing and widening
// (f64, f32, f16, bf16), integer widening and wrapping narrowing, and
// to/from i1 (x != 0); one compile for two batch sizes.

// RUN: tgc-run %s --calls 0=4x7,1=4x7,2=4x7,3=4x7,4=4x7,5=4x7,6=4x7,7=4x7,8=4x7 \
// RUN:   --calls 0=11x7,1=11x7,2=11x7,3=11x7,4=11x7,5=11x7,6=11x7,7=11x7,8=11x7 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 2,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @convert(%x: tensor<?x7xf32> {tgc.input_range = array<f64: -100.0, 100.0>},
                   %h: tensor<?x7xf16>, %g: tensor<?x7xbf16>,
                   %i: tensor<?x7xi64> {tgc.input_range = array<i64: -100000, 100000>},
                   %n: tensor<?x7xi32> {tgc.input_range = array<i64: -300, 300>},
                   %b: tensor<?x7xi1>, %d: tensor<?x7xf64>,
                   %s: tensor<?x7xi8> {tgc.input_range = array<i64: -128, 128>},
                   %z: tensor<?x7xf32> {tgc.input_range = array<f64: -1.5, 1.5>})
    -> (tensor<?x7xi32>, tensor<?x7xi64>, tensor<?x7xf16>, tensor<?x7xbf16>,
        tensor<?x7xf32>, tensor<?x7xf32>, tensor<?x7xf32>, tensor<?x7xi8>,
        tensor<?x7xi1>, tensor<?x7xf32>, tensor<?x7xi64>, tensor<?x7xf32>,
        tensor<?x7xf64>, tensor<?x7xi32>, tensor<?x7xf16>, tensor<?x7xi1>,
        tensor<?x7xi1>) {
  %0 = tgc.convert %x : tensor<?x7xf32> -> tensor<?x7xi32>
  %1 = tgc.convert %x : tensor<?x7xf32> -> tensor<?x7xi64>
  %2 = tgc.convert %x : tensor<?x7xf32> -> tensor<?x7xf16>
  %3 = tgc.convert %x : tensor<?x7xf32> -> tensor<?x7xbf16>
  %4 = tgc.convert %h : tensor<?x7xf16> -> tensor<?x7xf32>
  %5 = tgc.convert %g : tensor<?x7xbf16> -> tensor<?x7xf32>
  %6 = tgc.convert %i : tensor<?x7xi64> -> tensor<?x7xf32>
  %7 = tgc.convert %n : tensor<?x7xi32> -> tensor<?x7xi8>
  %8 = tgc.convert %z : tensor<?x7xf32> -> tensor<?x7xi1>
  %9 = tgc.convert %b : tensor<?x7xi1> -> tensor<?x7xf32>
  %10 = tgc.convert %b : tensor<?x7xi1> -> tensor<?x7xi64>
  %11 = tgc.convert %d : tensor<?x7xf64> -> tensor<?x7xf32>
  %12 = tgc.convert %x : tensor<?x7xf32> -> tensor<?x7xf64>
  %13 = tgc.convert %s : tensor<?x7xi8> -> tensor<?x7xi32>
  %14 = tgc.convert %g : tensor<?x7xbf16> -> tensor<?x7xf16>
  %15 = tgc.convert %n : tensor<?x7xi32> -> tensor<?x7xi1>
  %zi = tgc.convert %z : tensor<?x7xf32> -> tensor<?x7xi32>
  %16 = tgc.convert %zi : tensor<?x7xi32> -> tensor<?x7xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16
    : tensor<?x7xi32>, tensor<?x7xi64>, tensor<?x7xf16>, tensor<?x7xbf16>,
      tensor<?x7xf32>, tensor<?x7xf32>, tensor<?x7xf32>, tensor<?x7xi8>,
      tensor<?x7xi1>, tensor<?x7xf32>, tensor<?x7xi64>, tensor<?x7xf32>,
      tensor<?x7xf64>, tensor<?x7xi32>, tensor<?x7xf16>, tensor<?x7xi1>, tensor<?x7xi1>
}
