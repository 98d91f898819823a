// Slices with a step (x[::3], x[:, 1::2]) of computed values, returned and
// read by later ops, with dynamic sizes, against the reference interpreter.
// On the GPU a returned strided slice was copied by a vectorized kernel
// that took its rows for adjacent ones (GPU fuzzing, seed 302837);
// utils/run-gpu-tests.py --cpu-tests runs this on the GPU too.

// RUN: tgc-run %s --calls 0=8x6 --calls 0=8x13 --check reference --json | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true

func.func @strided(%x: tensor<8x?xf32>) -> (tensor<3x?xf32>, tensor<8x?xf32>, tensor<3x?xf32>) {
  %e = tgc.exp2 %x : tensor<8x?xf32>
  %rows = tgc.slice %e dim = 0 start = -8 end = 7 step = 3 : tensor<8x?xf32> -> tensor<3x?xf32>
  %cols = tgc.slice %e dim = 1 start = 1 end = 9223372036854775807 step = 2 : tensor<8x?xf32> -> tensor<8x?xf32>
  %t = tgc.tanh %rows : tensor<3x?xf32>
  return %rows, %cols, %t : tensor<3x?xf32>, tensor<8x?xf32>, tensor<3x?xf32>
}
