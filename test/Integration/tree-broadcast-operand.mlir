// A log-softmax over one row divided by an add over the row's length that
// the division broadcasts, against the reference interpreter: on the GPU
// the add ran as an epilogue of the row's tree reduction, at its one output
// point, so only its first element was computed (GPU fuzzing, seeds 401554
// and 300092, reduced by utils/reduce-graph.py). utils/run-gpu-tests.py
// --cpu-tests runs this on the GPU too.

// RUN: tgc-run %s --calls 0=64,1=1x64 --calls 0=5000,1=1x5000 --check reference --json | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true

func.func @tree_broadcast_operand(%w: tensor<?xf32>, %x: tensor<1x?xf32>) -> tensor<1x?xf32> {
  %half = tgc.constant dense<0.5> : tensor<f32>
  %l = tgc.log_softmax %x dim = 1 : tensor<1x?xf32>
  %quarter = tgc.constant dense<0.25> : tensor<f32>
  %q = tgc.mul %l, %quarter : tensor<1x?xf32>, tensor<f32> -> tensor<1x?xf32>
  %a = tgc.abs %w : tensor<?xf32>
  %d = tgc.add %a, %half : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  %y = tgc.div %q, %d : tensor<1x?xf32>, tensor<?xf32> -> tensor<1x?xf32>
  return %y : tensor<1x?xf32>
}
