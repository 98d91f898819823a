// A convolution's two gradients (tgc.conv2d_backward_input and
// tgc.conv2d_backward_weight) on the CPU, as the generics tgc-to-linalg
// builds, against the reference interpreter: strided, padded, grouped and
// dilated windows, `?` batch sizes (one compile for two), f64. The
// reference's own agreement with PyTorch's convolution_backward is
// python/test/test_training.py's.

// RUN: tgc-run %s --entry dgrad --calls 0=3x6x4x4 --calls 0=5x6x4x4 --check reference --json \
// RUN:   | FileCheck %s
// RUN: tgc-run %s --entry wgrad --calls 0=3x6x4x4,1=3x4x8x7 --calls 0=2x6x4x4,1=2x4x8x7 \
// RUN:   --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry dilated_f64 --check reference --json | FileCheck %s

// CHECK: "compiles": 1,
// CHECK: "reference_ok": true

func.func @dgrad(%dy: tensor<?x6x4x4xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<?x4x8x7xf32> {
  %dx = tgc.conv2d_backward_input %dy, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 2 : tensor<?x6x4x4xf32>, tensor<6x2x3x3xf32> -> tensor<?x4x8x7xf32>
  return %dx : tensor<?x4x8x7xf32>
}

func.func @wgrad(%dy: tensor<?x6x4x4xf32>, %x: tensor<?x4x8x7xf32>) -> tensor<6x2x3x3xf32> {
  %dw = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups = 2 : tensor<?x6x4x4xf32>, tensor<?x4x8x7xf32> -> tensor<6x2x3x3xf32>
  return %dw : tensor<6x2x3x3xf32>
}

func.func @dilated_f64(%dy: tensor<2x5x6x4xf64>, %w: tensor<5x3x3x2xf64>, %x: tensor<2x3x8x10xf64>) -> (tensor<2x3x8x10xf64>, tensor<5x3x3x2xf64>) {
  %dx = tgc.conv2d_backward_input %dy, %w stride [1, 2] padding [1, 0] dilation [2, 3] groups = 1 : tensor<2x5x6x4xf64>, tensor<5x3x3x2xf64> -> tensor<2x3x8x10xf64>
  %dw = tgc.conv2d_backward_weight %dy, %x kernel [3, 2] stride [1, 2] padding [1, 0] dilation [2, 3] groups = 1 : tensor<2x5x6x4xf64>, tensor<2x3x8x10xf64> -> tensor<5x3x3x2xf64>
  return %dx, %dw : tensor<2x3x8x10xf64>, tensor<5x3x3x2xf64>
}
