// cholesky compiled for the CPU against the reference interpreter: lower
// and upper factors of a dynamic batch of f64 SPD matrices built in the
// function (A A^T + I) and of one f32 matrix; one compile for two batch
// sizes.

// RUN: tgc-run %s --calls 0=2x5x5 --calls 0=6x5x5 --check reference --json | FileCheck %s
// CHECK:      "calls": 2,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @cholesky(%a: tensor<?x5x5xf64>, %b: tensor<3x3xf32>)
    -> (tensor<?x5x5xf64>, tensor<?x5x5xf64>, tensor<3x3xf32>) {
  %t = tgc.permute %a [0, 2, 1] : tensor<?x5x5xf64> -> tensor<?x5x5xf64>
  %s = tgc.bmm %a, %t : tensor<?x5x5xf64>, tensor<?x5x5xf64> -> tensor<?x5x5xf64>
  %eye = tgc.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]]> : tensor<5x5xf64>
  %spd = tgc.add %s, %eye : tensor<?x5x5xf64>, tensor<5x5xf64> -> tensor<?x5x5xf64>
  %0 = tgc.cholesky %spd : tensor<?x5x5xf64>
  %1 = tgc.cholesky %spd upper : tensor<?x5x5xf64>
  %bt = tgc.permute %b [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  %bb = tgc.matmul %b, %bt : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
  %e3 = tgc.constant dense<[[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.5]]> : tensor<3x3xf32>
  %spd3 = tgc.add %bb, %e3 : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
  %2 = tgc.cholesky %spd3 : tensor<3x3xf32>
  return %0, %1, %2 : tensor<?x5x5xf64>, tensor<?x5x5xf64>, tensor<3x3xf32>
}
