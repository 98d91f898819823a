// A small CNN (conv2d + bias + ReLU + max_pool2d, conv2d + bias + ReLU +
// avg_pool2d, flatten, linear, log_softmax) on 12x12 single-channel images
// with a dynamic batch, compiled for the CPU against the reference
// interpreter; one compile for three batch sizes.

// RUN: tgc-run %s --calls 0=2x1x12x12 --calls 0=5x1x12x12 --calls 0=16x1x12x12 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 3,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @cnn(%x: tensor<?x1x12x12xf32>,
               %w1: tensor<4x1x3x3xf32>, %b1: tensor<4xf32>,
               %w2: tensor<8x4x3x3xf32>, %b2: tensor<8xf32>,
               %w3: tensor<10x72xf32>, %b3: tensor<10xf32>) -> tensor<?x10xf32> {
  %c1 = tgc.conv2d %x, %w1 bias(%b1 : tensor<4xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x1x12x12xf32>, tensor<4x1x3x3xf32> -> tensor<?x4x12x12xf32>
  %r1 = tgc.relu %c1 : tensor<?x4x12x12xf32>
  %p1 = tgc.max_pool2d %r1 kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<?x4x12x12xf32> -> tensor<?x4x6x6xf32>
  %c2 = tgc.conv2d %p1, %w2 bias(%b2 : tensor<8xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x4x6x6xf32>, tensor<8x4x3x3xf32> -> tensor<?x8x6x6xf32>
  %r2 = tgc.relu %c2 : tensor<?x8x6x6xf32>
  %p2 = tgc.avg_pool2d %r2 kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<?x8x6x6xf32> -> tensor<?x8x3x3xf32>
  %f = tgc.reshape %p2 : tensor<?x8x3x3xf32> -> tensor<?x72xf32>
  %l = tgc.linear %f, %w3, %b3 : tensor<?x72xf32>, tensor<10x72xf32>, tensor<10xf32> -> tensor<?x10xf32>
  %y = tgc.log_softmax %l dim = 1 : tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}
