// RUN: tgc-opt %s --tgc-to-linalg="library-convolutions=1" --canonicalize -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-to-linalg -split-input-file | FileCheck %s --check-prefix=IM2COL

// With library-convolutions (the GPU pipeline when cuDNN runs
// convolutions), an f32 convolution is one generic that states the direct
// convolution, marked #tgc_gpu.conv with its window parameters: loops
// (n, o, oh, ow, c, kh, kw), the weight its input, the input read in the
// body at the clamped window position, zero outside it. Without, im2col.

// CHECK-LABEL: func.func @padded
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg1 : tensor<6x4x3x3xf32>) outs(%{{.*}} : tensor<?x6x4x4xf32>) attrs = {{.*}}tgc_gpu.conv = #tgc_gpu.conv<stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1>}
// CHECK: %[[H:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: arith.select
// CHECK: %[[V:.*]] = tensor.extract %arg0
// CHECK: %[[Z:.*]] = arith.select %{{.*}}, %[[V]], %cst
// CHECK: %[[P:.*]] = arith.mulf %[[Z]], %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[P]] : f32
// IM2COL-LABEL: func.func @padded
// IM2COL-NOT: tgc_gpu.conv
func.func @padded(%x: tensor<?x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<?x6x4x4xf32> {
  %y = tgc.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<?x6x4x4xf32>
  return %y : tensor<?x6x4x4xf32>
}

// -----

// Grouped (a depthwise convolution: 8 groups of one channel each) with a
// bias: the input channel is o / (O / G) * (C / G) + c; the bias is an
// elementwise op after the generic. No padding: no bounds checks.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.generic {{.*}} tgc_gpu.conv = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [2, 2], groups = 8>}
// CHECK-NOT: arith.select
// CHECK: arith.divui %{{.*}}, %c2 : index
// CHECK: tensor.extract %arg0
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @depthwise(%x: tensor<2x8x9x9xf32>, %w: tensor<16x1x3x3xf32>, %b: tensor<16xf32>) -> tensor<2x16x5x5xf32> {
  %y = tgc.conv2d %x, %w bias(%b : tensor<16xf32>) stride [1, 1] padding [0, 0] dilation [2, 2] groups = 8 : tensor<2x8x9x9xf32>, tensor<16x1x3x3xf32> -> tensor<2x16x5x5xf32>
  return %y : tensor<2x16x5x5xf32>
}

// -----

// The TF32 mark (tgc-mark-tf32) becomes the attribute's tf32; f16 and a
// weight of dynamic sizes stay im2col.
// CHECK-LABEL: func.func @others
// CHECK: tgc_gpu.conv = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1, tf32 = true>
// CHECK-NOT: tgc_gpu.conv
// CHECK: return
func.func @others(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x1x1xf32>, %h: tensor<1x4x8x8xf16>, %g: tensor<6x4x1x1xf16>, %d: tensor<?x4x1x1xf32>) -> (tensor<1x6x8x8xf32>, tensor<1x6x8x8xf16>, tensor<1x?x8x8xf32>) {
  %a = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 {tgc.tf32} : tensor<1x4x8x8xf32>, tensor<6x4x1x1xf32> -> tensor<1x6x8x8xf32>
  %b = tgc.conv2d %h, %g stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x4x8x8xf16>, tensor<6x4x1x1xf16> -> tensor<1x6x8x8xf16>
  %c = tgc.conv2d %x, %d stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x4x8x8xf32>, tensor<?x4x1x1xf32> -> tensor<1x?x8x8xf32>
  return %a, %b, %c : tensor<1x6x8x8xf32>, tensor<1x6x8x8xf16>, tensor<1x?x8x8xf32>
}

// -----

// A `?` channel count is checked against groups times the weight's
// channels before the generic reads channel o / (O/G) * C/G + c.
// CHECK-LABEL: func.func @dynamic_channels
// CHECK: %[[C:.*]] = tensor.dim {{.*}}%arg0, %c1
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[C]], %c8
// CHECK: cf.assert %[[OK]], "tgc.conv2d: the input channels are not groups times the weight's"
// CHECK: tgc_gpu.conv = #tgc_gpu.conv<stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 2>
func.func @dynamic_channels(%x: tensor<1x?x8x8xf32>, %w: tensor<6x4x1x1xf32>) -> tensor<1x6x8x8xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 2 : tensor<1x?x8x8xf32>, tensor<6x4x1x1xf32> -> tensor<1x6x8x8xf32>
  return %y : tensor<1x6x8x8xf32>
}
