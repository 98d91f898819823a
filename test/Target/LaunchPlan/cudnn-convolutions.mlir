// RUN: tgc-opt %s --tgc-gpu-pipeline="cudnn-convolutions=1 tf32-convolutions=1" -split-input-file | tgc-translate --tgc-to-launch-plan -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-gpu-pipeline -split-input-file | tgc-translate --tgc-to-launch-plan -split-input-file | FileCheck %s --check-prefix=IM2COL

// With cudnn-convolutions, an f32 convolution is one `conv` step of the
// launch plan: the input, the packed weight and the output as rank-4
// buffer parameters (sizes and strides from the argument sizes), the
// window parameters as constants; the zero fill before it is gone (cuDNN
// writes every output element), and the bias and ReLU after it are a
// kernel. Without the option: im2col and a GEMM.

// CHECK-LABEL: function conv_bias_relu
// CHECK-NOT: memset
// CHECK: conv f32 tf32 x b{{[0-9]+}}/4{{.*}}*4r w b{{[0-9]+}}/4{{.*}}*4r y b0/4{{.*}}*4w stride 1 1 padding 1 1 dilation 1 1 groups 1
// CHECK-NEXT: launch
// CHECK-NOT: gemm
// IM2COL-LABEL: function conv_bias_relu
// IM2COL-NOT: conv f32
// IM2COL: gemm f32
func.func @conv_bias_relu(%x: tensor<?x8x16x16xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<?x16x16x16xf32> {
  %y = tgc.conv2d %x, %w bias(%b : tensor<16xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x8x16x16xf32>, tensor<16x8x3x3xf32> -> tensor<?x16x16x16xf32>
  %r = tgc.relu %y : tensor<?x16x16x16xf32>
  return %r : tensor<?x16x16x16xf32>
}

// -----

// A depthwise convolution: groups = the channels.
// CHECK-LABEL: function depthwise
// CHECK: conv f32 tf32 x {{.*}} stride 2 2 padding 1 1 dilation 1 1 groups 8
func.func @depthwise(%x: tensor<2x8x16x16xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<2x8x8x8xf32> {
  %y = tgc.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 8 : tensor<2x8x16x16xf32>, tensor<8x1x3x3xf32> -> tensor<2x8x8x8xf32>
  return %y : tensor<2x8x8x8xf32>
}

// -----

// A convolution's gradients (tgc.conv2d_backward_input / _weight): conv
// steps of kind backward_data (writes x: dx) and backward_filter (writes
// w: dw), x, w and y keeping their roles; the grouped weight's [G, O/G,
// C/G, kH, kW] view is its packed buffer. Without cuDNN: kernels.
// CHECK-LABEL: function gradients
// CHECK-NOT: memset
// CHECK-DAG: conv f32 tf32 backward_data x b{{[0-9]+}}/4{{.*}}*4w w b{{[0-9]+}}/4{{.*}}*4r y b{{[0-9]+}}/4{{.*}}*4r stride 2 2 padding 1 1 dilation 1 1 groups 2
// CHECK-DAG: conv f32 tf32 backward_filter x b{{[0-9]+}}/4{{.*}}*4r w b{{[0-9]+}}/4{{.*}}*4w y b{{[0-9]+}}/4{{.*}}*4r stride 2 2 padding 1 1 dilation 1 1 groups 2
// CHECK-NOT: launch
// IM2COL-LABEL: function gradients
// IM2COL-NOT: conv f32
// IM2COL: launch
func.func @gradients(%dy: tensor<?x6x4x4xf32>, %w: tensor<6x2x3x3xf32>, %x: tensor<?x4x8x8xf32>) -> (tensor<?x4x8x8xf32>, tensor<6x2x3x3xf32>) {
  %dx = tgc.conv2d_backward_input %dy, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 2 : tensor<?x6x4x4xf32>, tensor<6x2x3x3xf32> -> tensor<?x4x8x8xf32>
  %dw = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups = 2 : tensor<?x6x4x4xf32>, tensor<?x4x8x8xf32> -> tensor<6x2x3x3xf32>
  return %dx, %dw : tensor<?x4x8x8xf32>, tensor<6x2x3x3xf32>
}
