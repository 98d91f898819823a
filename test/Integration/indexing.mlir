// Indexing ops compiled for the CPU against the reference interpreter:
// gather along the last dim, index_select with i64 and i32 indices along
// either dim, and embedding of a dynamic batch of id rows; one compile for
// two batch sizes. Indices are drawn in range (tgc.input_range).

// RUN: tgc-run %s --calls 0=2x8,1=2x3,5=2x3 --calls 0=9x8,1=9x3,5=9x3 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 2,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @indexing(%x: tensor<?x8xf32>,
                    %gi: tensor<?x3xi64> {tgc.input_range = array<i64: 0, 8>},
                    %si: tensor<5xi64> {tgc.input_range = array<i64: 0, 8>},
                    %ri: tensor<4xi32> {tgc.input_range = array<i64: 0, 2>},
                    %w: tensor<50x6xf32>,
                    %ids: tensor<?x3xi64> {tgc.input_range = array<i64: 0, 50>})
    -> (tensor<?x3xf32>, tensor<?x5xf32>, tensor<4x8xf32>, tensor<?x3x6xf32>) {
  %0 = tgc.gather %x, %gi dim = 1 : tensor<?x8xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  %1 = tgc.index_select %x, %si dim = 1 : tensor<?x8xf32>, tensor<5xi64> -> tensor<?x5xf32>
  %2 = tgc.index_select %x, %ri dim = 0 : tensor<?x8xf32>, tensor<4xi32> -> tensor<4x8xf32>
  %3 = tgc.embedding %w, %ids : tensor<50x6xf32>, tensor<?x3xi64> -> tensor<?x3x6xf32>
  return %0, %1, %2, %3 : tensor<?x3xf32>, tensor<?x5xf32>, tensor<4x8xf32>, tensor<?x3x6xf32>
}
