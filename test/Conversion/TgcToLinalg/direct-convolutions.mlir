// RUN: tgc-opt %s --tgc-to-linalg="direct-convolutions=1 im2col-batch-columns=1" -split-input-file | FileCheck %s

// With direct-convolutions (the CPU pipeline), an ungrouped f32 or f64
// convolution of stride 1 along the width whose images have at least 256
// outputs (or a `?` size) is one contraction over loops (n, o, oh, ow, c,
// kh, kw) of the padded input and the weight, marked tgc.direct_conv: no
// im2col patches. Other convolutions keep their im2col product.

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 + d6 * 2)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @direct
// CHECK: %[[PAD:.*]] = tensor.pad
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[PAD]], %{{.*}} : tensor<2x4x34x36xf32>, tensor<6x4x3x3xf32>) outs(%[[ZERO]] : tensor<2x6x16x32xf32>) attrs = {{.*}}tgc.direct_conv
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @direct(%x: tensor<2x4x32x32xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x16x32xf32> {
  %y = tgc.conv2d %x, %w bias(%b : tensor<6xf32>) stride [2, 1] padding [1, 2] dilation [1, 2] groups = 1 : tensor<2x4x32x32xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x16x32xf32>
  return %y : tensor<2x6x16x32xf32>
}

// -----

// `?` sizes: direct (im2col could not take both output sizes `?`).
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x6x?x?xf64>) attrs = {{.*}}tgc.direct_conv
func.func @dynamic(%x: tensor<?x4x?x?xf64>, %w: tensor<6x4x3x3xf64>) -> tensor<?x6x?x?xf64> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x4x?x?xf64>, tensor<6x4x3x3xf64> -> tensor<?x6x?x?xf64>
  return %y : tensor<?x6x?x?xf64>
}

// -----

// Stride 2 along the width: a vector of outputs would read every other
// input. im2col.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: tgc.direct_conv
// CHECK: tensor.collapse_shape
// CHECK: return
func.func @strided(%x: tensor<2x4x32x32xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<2x6x16x16xf32> {
  %y = tgc.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x4x32x32xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x16x16xf32>
  return %y : tensor<2x6x16x16xf32>
}

// -----

// 15 x 15 = 225 outputs per image: the batch in an im2col product's
// columns fills register tiles better.
// CHECK-LABEL: func.func @small_images
// CHECK-NOT: tgc.direct_conv
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3, 4, 5]]
// CHECK: return
func.func @small_images(%x: tensor<2x4x15x15xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<2x6x15x15xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x4x15x15xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x15x15xf32>
  return %y : tensor<2x6x15x15xf32>
}

// -----

// Grouped, and f16 (a product accumulated in f32): not direct.
// CHECK-LABEL: func.func @grouped
// CHECK-NOT: tgc.direct_conv
// CHECK: linalg.conv_2d_ngchw_gfchw
func.func @grouped(%x: tensor<2x4x32x32xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x32x32xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 2 : tensor<2x4x32x32xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x32x32xf32>
  return %y : tensor<2x6x32x32xf32>
}
// CHECK-LABEL: func.func @half
// CHECK-NOT: tgc.direct_conv
// CHECK: tensor.collapse_shape
func.func @half(%x: tensor<2x4x32x32xf16>, %w: tensor<6x4x3x3xf16>) -> tensor<2x6x32x32xf16> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x4x32x32xf16>, tensor<6x4x3x3xf16> -> tensor<2x6x32x32xf16>
  return %y : tensor<2x6x32x32xf16>
}
