// Reductions compiled for the CPU against the reference interpreter:
// sum/mean/amax/amin/var/norm over one, several and all dims, with and
// without keepdim, argmax/argmin/max/min (values and first-index ties on
// small integers), on a dynamic batch (@reduce) and over a dynamic reduced
// dim with long rows (@rows: p-norms, f16 sums accumulated in f32, the
// unbiased variance), and NaN and infinities (@special: NaN propagates
// through amax/amin/max/sum, argmax/argmin pick the first NaN, a row of
// -inf). Negative dims are not in the IR: the verifier
// rejects them and the importer normalizes them.

// RUN: tgc-run %s --entry reduce --calls 0=3x6x5,1=3x6 --calls 0=9x6x5,1=9x6 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=REDUCE
// REDUCE:      "calls": 2,
// REDUCE:      "compiles": 1,
// REDUCE:      "reference_ok": true

// RUN: tgc-run %s --entry rows --calls 0=4x7,1=4x7 --calls 0=4x300,1=4x300 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=ROWS
// ROWS:      "calls": 2,
// ROWS:      "compiles": 1,
// ROWS:      "reference_ok": true

// RUN: %python %S/Inputs/npy.py %t.special.npy f4 4x5 1 nan 3 2 0 -inf -inf -inf -inf -inf \
// RUN:   2 5 5 -1 inf 0.5 0.25 nan nan -3
// RUN: tgc-run %s --entry special --inputs %t.special.npy --check reference --print-results \
// RUN:   | FileCheck %s --check-prefix=SPECIAL
// SPECIAL:      result 0 (call 0): [nan,  -inf,  inf,  nan]
// SPECIAL-NEXT: result 1 (call 0): [nan,  -inf,  -1,  nan]
// SPECIAL-NEXT: result 2 (call 0): [1,  0,  4,  2]
// SPECIAL-NEXT: result 3 (call 0): [1,  0,  3,  2]
// SPECIAL-NEXT: result 4 (call 0): [nan,  -inf,  inf,  nan]
// SPECIAL-NEXT: result 5 (call 0): [1,  0,  4,  2]
// SPECIAL-NEXT: result 6 (call 0): [nan,  -inf,  inf,  nan]
// SPECIAL-NEXT: result 7 (call 0): [nan,  inf,  inf,  nan]
// SPECIAL:      reference check: ok

func.func @reduce(%x: tensor<?x6x5xf32>, %i: tensor<?x6xi32> {tgc.input_range = array<i64: -3, 3>})
    -> (tensor<?x5xf32>, tensor<6xf32>, tensor<?x1x5xf32>, tensor<?x6xf32>,
        tensor<?x6xf32>, tensor<?x6xf32>, tensor<?x6x1xf32>, tensor<?x5xf32>,
        tensor<?x5xi64>, tensor<?x6xi64>, tensor<?x1x5xi64>, tensor<?x6xf32>, tensor<?x6xi64>,
        tensor<?x5xf32>, tensor<?x5xi64>, tensor<?xi32>, tensor<1x6xi32>, tensor<6xi32>,
        tensor<?xi64>, tensor<f32>) {
  %0 = tgc.sum %x dims [1] : tensor<?x6x5xf32> -> tensor<?x5xf32>
  %1 = tgc.mean %x dims [0, 2] : tensor<?x6x5xf32> -> tensor<6xf32>
  %2 = tgc.mean %x dims [1] keepdim : tensor<?x6x5xf32> -> tensor<?x1x5xf32>
  %3 = tgc.amax %x dims [2] : tensor<?x6x5xf32> -> tensor<?x6xf32>
  %4 = tgc.amin %x dims [2] : tensor<?x6x5xf32> -> tensor<?x6xf32>
  %5 = tgc.var %x dims [2] : tensor<?x6x5xf32> -> tensor<?x6xf32>
  %6 = tgc.var %x dims [2] keepdim {correction = 0 : i64} : tensor<?x6x5xf32> -> tensor<?x6x1xf32>
  %7 = tgc.norm %x dims [1] : tensor<?x6x5xf32> -> tensor<?x5xf32>
  %8 = tgc.argmax %x dim 1 : tensor<?x6x5xf32> -> tensor<?x5xi64>
  %9 = tgc.argmin %x dim 2 : tensor<?x6x5xf32> -> tensor<?x6xi64>
  %10 = tgc.argmax %x dim 1 keepdim : tensor<?x6x5xf32> -> tensor<?x1x5xi64>
  %11:2 = tgc.max %x dim 2 : tensor<?x6x5xf32> -> tensor<?x6xf32>, tensor<?x6xi64>
  %12:2 = tgc.min %x dim 1 : tensor<?x6x5xf32> -> tensor<?x5xf32>, tensor<?x5xi64>
  %13 = tgc.sum %i dims [1] : tensor<?x6xi32> -> tensor<?xi32>
  %14 = tgc.amax %i dims [0] keepdim : tensor<?x6xi32> -> tensor<1x6xi32>
  %15 = tgc.amin %i dims [0] : tensor<?x6xi32> -> tensor<6xi32>
  %16 = tgc.argmax %i dim 1 : tensor<?x6xi32> -> tensor<?xi64>
  %17 = tgc.sum %x dims [0, 1, 2] : tensor<?x6x5xf32> -> tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11#0, %11#1, %12#0, %12#1, %13, %14, %15, %16, %17
    : tensor<?x5xf32>, tensor<6xf32>, tensor<?x1x5xf32>, tensor<?x6xf32>,
      tensor<?x6xf32>, tensor<?x6xf32>, tensor<?x6x1xf32>, tensor<?x5xf32>,
      tensor<?x5xi64>, tensor<?x6xi64>, tensor<?x1x5xi64>, tensor<?x6xf32>, tensor<?x6xi64>,
      tensor<?x5xf32>, tensor<?x5xi64>, tensor<?xi32>, tensor<1x6xi32>, tensor<6xi32>,
      tensor<?xi64>, tensor<f32>
}

func.func @rows(%x: tensor<4x?xf32>, %h: tensor<4x?xf16>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf16>, tensor<4xf32>) {
  %0 = tgc.norm %x dims [1] {p = 1.0 : f64} : tensor<4x?xf32> -> tensor<4xf32>
  %1 = tgc.norm %x dims [1] {p = 3.0 : f64} : tensor<4x?xf32> -> tensor<4xf32>
  %2 = tgc.sum %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  %3 = tgc.sum %h dims [1] : tensor<4x?xf16> -> tensor<4xf16>
  %4 = tgc.mean %h dims [1] : tensor<4x?xf16> -> tensor<4xf16>
  %5 = tgc.var %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf16>, tensor<4xf32>
}

func.func @special(%x: tensor<4x?xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>,
        tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>,
        tensor<4x?xf32>) {
  %0 = tgc.amax %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  %1 = tgc.amin %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  %2 = tgc.argmax %x dim 1 : tensor<4x?xf32> -> tensor<4xi64>
  %3 = tgc.argmin %x dim 1 : tensor<4x?xf32> -> tensor<4xi64>
  %4:2 = tgc.max %x dim 1 : tensor<4x?xf32> -> tensor<4xf32>, tensor<4xi64>
  %5 = tgc.sum %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  %6 = tgc.norm %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  %7 = tgc.softmax %x dim = 1 : tensor<4x?xf32>
  return %0, %1, %2, %3, %4#0, %4#1, %5, %6, %7
    : tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>,
      tensor<4xf32>, tensor<4xi64>, tensor<4xf32>, tensor<4xf32>,
      tensor<4x?xf32>
}
