// topk compiled for the CPU against the reference interpreter. @topk_out
// is seed 000 (topk(x, 10, out=(v, i))): one compile serves every size the
// op allows, under the single guard s0 >= 10, including the boundary
// k == size. @topk_rows takes the k smallest along dim 1 and the k largest
// along dim 0 of a matrix with two dynamic dims.

// RUN: tgc-run %s --entry topk_out --calls 0=10 --calls 0=37 --calls 0=1000 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=OUT
// OUT:      "calls": 3,
// OUT:      "compiles": 1,
// OUT:      "s0 >= 10 (tgc.topk needs k (10) <= size of dim 0
// OUT:      "reference_ok": true

// RUN: tgc-run %s --entry topk_rows --calls 0=4x5 --calls 0=9x3 --calls 0=2x40 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=ROWS
// ROWS:      "calls": 3,
// ROWS:      "compiles": 1,
// ROWS:      "s1 >= 3 (tgc.topk needs k (3) <= size of dim 1
// ROWS:      "reference_ok": true

func.func @topk_out(%x: tensor<?xf32>, %v: tensor<10xf32>, %i: tensor<10xi64>) {
  %a, %b = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
  tgc.write_out %a into %v : tensor<10xf32> into tensor<10xf32>
  tgc.write_out %b into %i : tensor<10xi64> into tensor<10xi64>
  return
}

func.func @topk_rows(%x: tensor<?x?xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>, tensor<2x?xf32>, tensor<2x?xi64>) {
  %a, %b = tgc.topk %x k = 3 dim = 1 {largest = false} : tensor<?x?xf32> -> tensor<?x3xf32>, tensor<?x3xi64>
  %c, %d = tgc.topk %x k = 2 dim = 0 : tensor<?x?xf32> -> tensor<2x?xf32>, tensor<2x?xi64>
  return %a, %b, %c, %d : tensor<?x3xf32>, tensor<?x3xi64>, tensor<2x?xf32>, tensor<2x?xi64>
}
