// A reduction to 1x1 broadcast into an add over ?x7 rows, against the
// reference interpreter: on the GPU the sum of the 1x1 and the add formed
// one row kernel with one block, and rows past the first were never
// computed (GPU fuzzing, seed 304416). utils/run-gpu-tests.py --cpu-tests
// runs this on the GPU too.

// RUN: tgc-run %s --calls 0=4x7,1=3x9 --calls 0=6x7,1=3x3 --check reference --json | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true

func.func @rows_broadcast(%a0: tensor<?x7xf32>, %a2: tensor<3x?xf32>) -> tensor<?x7xf32> {
  %v6 = tgc.constant dense<1.5> : tensor<f32>
  %v7 = tgc.maximum %a0, %v6 : tensor<?x7xf32>, tensor<f32> -> tensor<?x7xf32>
  %v8 = tgc.amin %a2 dims [0, 1] keepdim : tensor<3x?xf32> -> tensor<1x1xf32>
  %v9 = tgc.sum %v8 dims [1] keepdim : tensor<1x1xf32> -> tensor<1x1xf32>
  %v10 = tgc.add %v7, %v9 : tensor<?x7xf32>, tensor<1x1xf32> -> tensor<?x7xf32>
  return %v10 : tensor<?x7xf32>
}
