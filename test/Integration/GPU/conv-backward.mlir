// REQUIRES: cuda-gpu
// A convolution's two gradients on the GPU against the reference
// interpreter: as cuDNN's backward-data and backward-filter operations
// (--gpu-cudnn-convolutions; TF32 off, so exact to f32 rounding), and as
// the generic's kernels without cuDNN. Two batch sizes, one compile; the
// second run of each call replays its cuDNN plan.

// RUN: tgc-run %s --entry gradients --device cuda --gpu-cudnn-convolutions \
// RUN:   --calls 0=3x6x4x4,2=3x4x8x7 --calls 0=5x6x4x4,2=5x4x8x7 --repeat 2 \
// RUN:   --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry gradients --device cuda \
// RUN:   --calls 0=3x6x4x4,2=3x4x8x7 --check reference --json | FileCheck %s

// CHECK: "compiles": 1,
// CHECK: "reference_ok": true

func.func @gradients(%dy: tensor<?x6x4x4xf32>, %w: tensor<6x2x3x3xf32>, %x: tensor<?x4x8x7xf32>) -> (tensor<?x4x8x7xf32>, tensor<6x2x3x3xf32>) {
  %dx = tgc.conv2d_backward_input %dy, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 2 : tensor<?x6x4x4xf32>, tensor<6x2x3x3xf32> -> tensor<?x4x8x7xf32>
  %dw = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups = 2 : tensor<?x6x4x4xf32>, tensor<?x4x8x7xf32> -> tensor<6x2x3x3xf32>
  return %dx, %dw : tensor<?x4x8x7xf32>, tensor<6x2x3x3xf32>
}
