// Divisions of rows by one value per row on the CPU, in kernels large
// enough to run under OpenMP, against the reference interpreter: a
// softmax multiplies by one reciprocal of its row sum
// (tgc-reciprocal-divisions), and every other division stays an IEEE
// division: `x / sqrt(s)` for s = 0, inf, a denormal (a reciprocal
// square-root estimate gave NaN, NaN and -inf), and `x / s` where 1 / s
// overflows. Softmax rows with an infinity or a NaN are NaN either way.

// RUN: %python %S/Inputs/npy.py %t.s.npy f4 64x1 0 inf 1e-40 4 1e-39 -0.0 nan -inf \
// RUN:   1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 \
// RUN:   1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8 1 2 3 4 5 6 7 8
// RUN: tgc-run %s --inputs %t.s.npy --check reference | FileCheck %s
// RUN: tgc-run %s --inputs %t.s.npy --check reference --exact-division | FileCheck %s
// CHECK: reference check: ok

func.func @rows(%s: tensor<64x1xf32>) -> (tensor<64x1024xf32>, tensor<64x1024xf32>, tensor<64x1024xf32>) {
  %one = tgc.constant dense<1.0e-39> : tensor<64x1024xf32>
  %r = tgc.sqrt %s : tensor<64x1xf32>
  %a = tgc.div %one, %r : tensor<64x1024xf32>, tensor<64x1xf32> -> tensor<64x1024xf32>
  %b = tgc.div %one, %s : tensor<64x1024xf32>, tensor<64x1xf32> -> tensor<64x1024xf32>
  %i = tgc.iota 0.0 : f32, 1.0e-03 : f32 : tensor<1024xf32>
  %x = tgc.mul %i, %s : tensor<1024xf32>, tensor<64x1xf32> -> tensor<64x1024xf32>
  %p = tgc.softmax %x dim = 1 : tensor<64x1024xf32>
  return %a, %b, %p : tensor<64x1024xf32>, tensor<64x1024xf32>, tensor<64x1024xf32>
}
