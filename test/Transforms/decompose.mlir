// RUN: tgc-opt %s -tgc-decompose -allow-unregistered-dialect -split-input-file | FileCheck %s

// A pointwise convolution is one matmul of the weight [O, C] with the
// input [N, C, H*W]; the reshapes keep the batch size as the input's own.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<?x16x8x8xf32>, %[[W:.*]]: tensor<32x16x1x1xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x16x8x8xf32>
// CHECK: %[[XF:.*]] = tgc.reshape %[[X]] [%[[N]]] : tensor<?x16x8x8xf32> -> tensor<?x16x64xf32>
// CHECK: %[[WF:.*]] = tgc.reshape %[[W]] : tensor<32x16x1x1xf32> -> tensor<32x16xf32>
// CHECK: %[[Y:.*]] = tgc.matmul %[[WF]], %[[XF]] : tensor<32x16xf32>, tensor<?x16x64xf32> -> tensor<?x32x64xf32>
// CHECK: %[[BC:.*]] = tgc.reshape %[[B]] : tensor<32xf32> -> tensor<32x1xf32>
// CHECK: %[[YB:.*]] = tgc.add %[[Y]], %[[BC]] : tensor<?x32x64xf32>, tensor<32x1xf32> -> tensor<?x32x64xf32>
// CHECK: %[[M:.*]] = tensor.dim %[[YB]], %{{.*}} : tensor<?x32x64xf32>
// CHECK: %[[R:.*]] = tgc.reshape %[[YB]] [%[[M]]] : tensor<?x32x64xf32> -> tensor<?x32x8x8xf32>
// CHECK: return %[[R]]
// CHECK-NOT: tgc.conv2d
func.func @pointwise(%x: tensor<?x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %b: tensor<32xf32>) -> tensor<?x32x8x8xf32> {
  %y = tgc.conv2d %x, %w bias(%b : tensor<32xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<?x16x8x8xf32>, tensor<32x16x1x1xf32> -> tensor<?x32x8x8xf32>
  return %y : tensor<?x32x8x8xf32>
}

// -----

// Unbatched, no bias.
// CHECK-LABEL: func.func @pointwise_unbatched
// CHECK: tgc.matmul %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x30xf32> -> tensor<8x30xf32>
// CHECK: tgc.reshape %{{.*}} : tensor<8x30xf32> -> tensor<8x5x6xf32>
func.func @pointwise_unbatched(%x: tensor<4x5x6xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<8x5x6xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<4x5x6xf32>, tensor<8x4x1x1xf32> -> tensor<8x5x6xf32>
  return %y : tensor<8x5x6xf32>
}

// -----

// Not rewritten: a 3x3 kernel, a stride, padding, groups, dynamic spatial
// sizes, and a bf16 bias (the convolution adds it before rounding).
// CHECK-LABEL: func.func @not_pointwise
// CHECK-COUNT-6: tgc.conv2d
// CHECK-NOT: tgc.matmul
func.func @not_pointwise(%x: tensor<2x4x6x6xf32>, %w3: tensor<8x4x3x3xf32>, %w1: tensor<8x4x1x1xf32>,
                         %wg: tensor<8x2x1x1xf32>, %xd: tensor<2x4x?x6xf32>,
                         %xh: tensor<2x4x6x6xbf16>, %wh: tensor<8x4x1x1xbf16>, %bh: tensor<8xbf16>) {
  %0 = tgc.conv2d %x, %w3 stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x4x6x6xf32>, tensor<8x4x3x3xf32> -> tensor<2x8x4x4xf32>
  %1 = tgc.conv2d %x, %w1 stride [2, 2] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x4x6x6xf32>, tensor<8x4x1x1xf32> -> tensor<2x8x3x3xf32>
  %2 = tgc.conv2d %x, %w1 stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x4x6x6xf32>, tensor<8x4x1x1xf32> -> tensor<2x8x8x8xf32>
  %3 = tgc.conv2d %x, %wg stride [1, 1] padding [0, 0] dilation [1, 1] groups = 2 : tensor<2x4x6x6xf32>, tensor<8x2x1x1xf32> -> tensor<2x8x6x6xf32>
  %4 = tgc.conv2d %xd, %w1 stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x4x?x6xf32>, tensor<8x4x1x1xf32> -> tensor<2x8x?x6xf32>
  %5 = tgc.conv2d %xh, %wh bias(%bh : tensor<8xbf16>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x4x6x6xbf16>, tensor<8x4x1x1xbf16> -> tensor<2x8x6x6xbf16>
  "test.use"(%0, %1, %2, %3, %4, %5) : (tensor<2x8x4x4xf32>, tensor<2x8x3x3xf32>, tensor<2x8x8x8xf32>, tensor<2x8x6x6xf32>, tensor<2x8x?x6xf32>, tensor<2x8x6x6xbf16>) -> ()
  return
}

// -----

// Global pools are reductions over the spatial dims.
// CHECK-LABEL: func.func @global_pools
// CHECK: tgc.amax %{{.*}} dims [2, 3] keepdim : tensor<?x16x7x7xf32> -> tensor<?x16x1x1xf32>
// CHECK: tgc.mean %{{.*}} dims [2, 3] keepdim : tensor<?x16x7x7xf32> -> tensor<?x16x1x1xf32>
// CHECK: tgc.mean %{{.*}} dims [1, 2] keepdim : tensor<16x7x7xf32> -> tensor<16x1x1xf32>
func.func @global_pools(%x: tensor<?x16x7x7xf32>, %u: tensor<16x7x7xf32>) -> (tensor<?x16x1x1xf32>, tensor<?x16x1x1xf32>, tensor<16x1x1xf32>) {
  %0 = tgc.max_pool2d %x kernel [7, 7] stride [7, 7] padding [0, 0] dilation [1, 1] : tensor<?x16x7x7xf32> -> tensor<?x16x1x1xf32>
  %1 = tgc.avg_pool2d %x kernel [7, 7] stride [1, 1] padding [0, 0] ceil_mode : tensor<?x16x7x7xf32> -> tensor<?x16x1x1xf32>
  %2 = tgc.avg_pool2d %u kernel [7, 7] stride [7, 7] padding [0, 0] : tensor<16x7x7xf32> -> tensor<16x1x1xf32>
  return %0, %1, %2 : tensor<?x16x1x1xf32>, tensor<?x16x1x1xf32>, tensor<16x1x1xf32>
}

// -----

// Not global: a smaller window, padding, and a divisor override.
// CHECK-LABEL: func.func @not_global
// CHECK-NOT: tgc.amax
// CHECK-NOT: tgc.mean
func.func @not_global(%x: tensor<2x16x7x7xf32>) {
  %0 = tgc.max_pool2d %x kernel [3, 3] stride [3, 3] padding [0, 0] dilation [1, 1] : tensor<2x16x7x7xf32> -> tensor<2x16x2x2xf32>
  %1 = tgc.avg_pool2d %x kernel [7, 7] stride [1, 1] padding [1, 1] : tensor<2x16x7x7xf32> -> tensor<2x16x3x3xf32>
  %2 = tgc.avg_pool2d %x kernel [7, 7] stride [7, 7] padding [0, 0] {divisor_override = 5 : i64} : tensor<2x16x7x7xf32> -> tensor<2x16x1x1xf32>
  "test.use"(%0, %1, %2) : (tensor<2x16x2x2xf32>, tensor<2x16x3x3xf32>, tensor<2x16x1x1xf32>) -> ()
  return
}
