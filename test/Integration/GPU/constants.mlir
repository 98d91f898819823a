// REQUIRES: cuda-gpu
// Dense constants on the GPU against the reference interpreter: a constant
// read by a kernel, a constant GEMM weight (cuBLASLt reads the module's
// global), a returned constant and a returned argument (copies into
// buffers of their own); on a stream and through CUDA graphs with inputs
// that move between replays.

// RUN: tgc-run %s --entry dense --device cuda --calls 0=5x3 --calls 0=1000x3 --check reference --json \
// RUN:   | FileCheck %s
// RUN: tgc-run %s --entry dense --device cuda --calls 0=5x3 --calls 0=1000x3 --check reference --json \
// RUN:   --cuda-graphs --fresh-inputs --repeat 3 | FileCheck %s --check-prefixes=CHECK,GRAPHS
// RUN: tgc-run %s --entry table --device cuda --check reference --json --repeat 2 | FileCheck %s
// RUN: tgc-run %s --entry passthrough --device cuda --calls 0=77 --check reference --json | FileCheck %s
// CHECK: "reference_ok": true
// GRAPHS: "graph_replays": {{[1-9]}}

func.func @dense(%x: tensor<?x3xf32>) -> (tensor<?x2xf32>, tensor<?x3xf32>) {
  %s = tgc.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %w = tgc.constant dense<[[1.0, 2.0], [3.0, -4.0], [5.0, 0.25]]> : tensor<3x2xf32>
  %xs = tgc.mul %x, %s : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %y = tgc.matmul %xs, %w : tensor<?x3xf32>, tensor<3x2xf32> -> tensor<?x2xf32>
  return %y, %xs : tensor<?x2xf32>, tensor<?x3xf32>
}

func.func @table() -> (tensor<3xi64>, tensor<2x2xbf16>) {
  %t = tgc.constant dense<[7, -8, 9]> : tensor<3xi64>
  %b = tgc.constant dense<[[1.5, -2.0], [0.125, 3.0]]> : tensor<2x2xbf16>
  return %t, %b : tensor<3xi64>, tensor<2x2xbf16>
}

func.func @passthrough(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %y = tgc.relu %x : tensor<?xf32>
  return %x, %y : tensor<?xf32>, tensor<?xf32>
}
