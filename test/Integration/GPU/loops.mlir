// REQUIRES: cuda-gpu
// Sequential loop nests as kernels (topk and cholesky): a thread per row or
// matrix, checked against the reference interpreter on a stream and
// through CUDA graphs with fresh input buffers between replays; a
// cholesky that meets a non-positive pivot fails the call with the op's
// message once it has run (the device-side check step).

// RUN: tgc-run %s --entry topk_rows --device cuda --calls 0=4x5 --calls 0=9x300 --calls 0=700x40 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=OK
// RUN: tgc-run %s --entry topk_rows --device cuda --calls 0=4x5 --calls 0=9x300 \
// RUN:   --check reference --json --cuda-graphs --fresh-inputs --repeat 3 | FileCheck %s --check-prefix=GRAPH
// RUN: tgc-run %s --entry topk_vector --device cuda --calls 0=10 --calls 0=5000 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=OK
// RUN: tgc-run %s --entry cholesky --device cuda --calls 0=1x6x6 --calls 0=300x6x6 \
// RUN:   --check reference --json --cuda-graphs --fresh-inputs --repeat 3 | FileCheck %s --check-prefix=GRAPH
// RUN: not tgc-run %s --entry cholesky_bad --device cuda --calls 0=3x4x4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// OK: "compiles": 1,
// OK: "reference_ok": true
// GRAPH: "compiles": 1,
// GRAPH: "graph_replays": {{[1-9]}}
// GRAPH: "reference_ok": true
// BAD: tgc.cholesky: the input is not positive-definite at {{.*}}loops.mlir:{{[0-9]+}}:8 (checked on the device

func.func @topk_rows(%x: tensor<?x?xf32>) -> (tensor<?x3xf32>, tensor<?x3xi64>) {
  %a, %b = tgc.topk %x k = 3 dim = 1 {largest = false} : tensor<?x?xf32> -> tensor<?x3xf32>, tensor<?x3xi64>
  return %a, %b : tensor<?x3xf32>, tensor<?x3xi64>
}

func.func @topk_vector(%x: tensor<?xf32>) -> (tensor<7xf32>, tensor<7xi64>) {
  %a, %b = tgc.topk %x k = 7 dim = 0 : tensor<?xf32> -> tensor<7xf32>, tensor<7xi64>
  return %a, %b : tensor<7xf32>, tensor<7xi64>
}

// A A^T + I: positive-definite.
func.func @cholesky(%a: tensor<?x6x6xf32>) -> tensor<?x6x6xf32> {
  %t = tgc.permute %a [0, 2, 1] : tensor<?x6x6xf32> -> tensor<?x6x6xf32>
  %s = tgc.bmm %a, %t : tensor<?x6x6xf32>, tensor<?x6x6xf32> -> tensor<?x6x6xf32>
  %eye = tgc.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]> : tensor<6x6xf32>
  %spd = tgc.add %s, %eye : tensor<?x6x6xf32>, tensor<6x6xf32> -> tensor<?x6x6xf32>
  %l = tgc.cholesky %spd : tensor<?x6x6xf32>
  return %l : tensor<?x6x6xf32>
}

// Negative diagonals: the first pivot fails.
func.func @cholesky_bad(%a: tensor<?x4x4xf32> {tgc.input_range = array<f64: -2.0, -1.0>}) -> tensor<?x4x4xf32> {
  %l = tgc.cholesky %a : tensor<?x4x4xf32>
  return %l : tensor<?x4x4xf32>
}
