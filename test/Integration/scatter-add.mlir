// tgc.scatter_add compiled for the CPU against the reference interpreter:
// torch.scatter_add along the last dim (an index smaller than src), the
// index_add form along dim 0 with i32 indices over a dynamic count (an
// embedding's backward), and an integer 1-d scatter. Indices are drawn in
// range with many repeats (tgc.input_range), so positions are hit several
// times; one compile for two sizes.

// RUN: tgc-run %s --calls 4=5,5=5x16 --calls 4=40,5=40x16 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 2,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @scatter_add(%b: tensor<4x8xf32>,
                       %i: tensor<4x3xi64> {tgc.input_range = array<i64: 0, 8>},
                       %s: tensor<4x5xf32>,
                       %w: tensor<6x16xf32>,
                       %ids: tensor<?xi32> {tgc.input_range = array<i64: 0, 6>},
                       %g: tensor<?x16xf32>,
                       %ib: tensor<5xi64>,
                       %ii: tensor<9xi64> {tgc.input_range = array<i64: 0, 5>},
                       %is: tensor<9xi64>)
    -> (tensor<4x8xf32>, tensor<6x16xf32>, tensor<5xi64>) {
  %0 = tgc.scatter_add %b, %i, %s dim = 1 : tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x5xf32> -> tensor<4x8xf32>
  %1 = tgc.scatter_add %w, %ids, %g dim = 0 : tensor<6x16xf32>, tensor<?xi32>, tensor<?x16xf32> -> tensor<6x16xf32>
  %2 = tgc.scatter_add %ib, %ii, %is dim = 0 : tensor<5xi64>, tensor<9xi64>, tensor<9xi64> -> tensor<5xi64>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<6x16xf32>, tensor<5xi64>
}
