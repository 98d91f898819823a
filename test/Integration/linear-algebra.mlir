// Linear algebra compiled for the CPU against the reference interpreter:
// matmul with torch.matmul's rank rules (2-D x 2-D, matrix x vector,
// vector x matrix, dot, broadcast batches), bmm, linear with and without
// bias on 2-D and 3-D inputs, an integer matmul (@linalg, dynamic sizes,
// one compile for two sizes) and f16/bf16 products (@low_precision).

// RUN: tgc-run %s --entry linalg \
// RUN:   --calls 0=3x12,3=2x1x3x5,5=3x3x4,6=3x4x5,9=2x3x12,10=3x12 \
// RUN:   --calls 0=10x12,3=2x1x10x5,5=10x3x4,6=10x4x5,9=2x10x12,10=10x12 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=LINALG
// LINALG:      "calls": 2,
// LINALG:      "compiles": 1,
// LINALG:      "reference_ok": true

// RUN: tgc-run %s --entry low_precision --calls 0=3x32,2=3x32 --calls 0=17x32,2=17x32 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=LOW
// LOW:      "calls": 2,
// LOW:      "compiles": 1,
// LOW:      "reference_ok": true

func.func @linalg(%a: tensor<?x12xf32>, %b: tensor<12x7xf32>, %v: tensor<12xf32>,
                  %p: tensor<2x1x?x5xf32>, %q: tensor<3x5x6xf32>,
                  %x: tensor<?x3x4xf32>, %y: tensor<?x4x5xf32>,
                  %w: tensor<9x12xf32>, %bias: tensor<9xf32>, %t: tensor<2x?x12xf32>,
                  %i: tensor<?x12xi32> {tgc.input_range = array<i64: -5, 5>}, %j: tensor<12x7xi32> {tgc.input_range = array<i64: -5, 5>})
    -> (tensor<?x7xf32>, tensor<?xf32>, tensor<7xf32>, tensor<f32>, tensor<2x3x?x6xf32>,
        tensor<?x3x5xf32>, tensor<?x9xf32>, tensor<2x?x9xf32>, tensor<?x7xi32>) {
  %0 = tgc.matmul %a, %b : tensor<?x12xf32>, tensor<12x7xf32> -> tensor<?x7xf32>
  %1 = tgc.matmul %a, %v : tensor<?x12xf32>, tensor<12xf32> -> tensor<?xf32>
  %2 = tgc.matmul %v, %b : tensor<12xf32>, tensor<12x7xf32> -> tensor<7xf32>
  %3 = tgc.matmul %v, %v : tensor<12xf32>, tensor<12xf32> -> tensor<f32>
  %4 = tgc.matmul %p, %q : tensor<2x1x?x5xf32>, tensor<3x5x6xf32> -> tensor<2x3x?x6xf32>
  %5 = tgc.bmm %x, %y : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
  %6 = tgc.linear %a, %w, %bias : tensor<?x12xf32>, tensor<9x12xf32>, tensor<9xf32> -> tensor<?x9xf32>
  %7 = tgc.linear %t, %w : tensor<2x?x12xf32>, tensor<9x12xf32> -> tensor<2x?x9xf32>
  %8 = tgc.matmul %i, %j : tensor<?x12xi32>, tensor<12x7xi32> -> tensor<?x7xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<?x7xf32>, tensor<?xf32>, tensor<7xf32>, tensor<f32>, tensor<2x3x?x6xf32>,
        tensor<?x3x5xf32>, tensor<?x9xf32>, tensor<2x?x9xf32>, tensor<?x7xi32>
}

func.func @low_precision(%a: tensor<?x32xf16>, %b: tensor<32x8xf16>, %x: tensor<?x32xbf16>, %w: tensor<8x32xbf16>)
    -> (tensor<?x8xf16>, tensor<?x8xbf16>) {
  %0 = tgc.matmul %a, %b : tensor<?x32xf16>, tensor<32x8xf16> -> tensor<?x8xf16>
  %1 = tgc.linear %x, %w : tensor<?x32xbf16>, tensor<8x32xbf16> -> tensor<?x8xbf16>
  return %0, %1 : tensor<?x8xf16>, tensor<?x8xbf16>
}
