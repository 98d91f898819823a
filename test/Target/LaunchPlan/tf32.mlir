// RUN: tgc-opt %s --tgc-gpu-pipeline="tf32-convolutions=1" -split-input-file | tgc-translate --tgc-to-launch-plan -split-input-file | FileCheck %s --check-prefix=CONV
// RUN: tgc-opt %s --tgc-gpu-pipeline="tf32-matmuls=1" -split-input-file | tgc-translate --tgc-to-launch-plan -split-input-file | FileCheck %s --check-prefix=MM
// RUN: tgc-opt %s --tgc-gpu-pipeline -split-input-file | tgc-translate --tgc-to-launch-plan -split-input-file | FileCheck %s --check-prefix=OFF

// TF32 from tgc-mark-tf32 to the launch plan's `gemm f32 ... tf32`: the
// im2col GEMM of a 3x3 convolution and the GEMM a pointwise convolution
// decomposes into follow the convolution flag; an f32 matmul follows the
// matmul flag; an f16 product is never marked (its f32 accumulation is a
// tensor-core product already).

// CONV-LABEL: function convs
// CONV-COUNT-2: gemm f32 out f32 tf32 m
// OFF-LABEL: function convs
// OFF-NOT: tf32
// MM-LABEL: function convs
// MM-NOT: tf32
func.func @convs(%x: tensor<2x8x16x16xf32>, %w: tensor<16x8x3x3xf32>, %w1: tensor<4x16x1x1xf32>) -> tensor<2x4x14x14xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x8x16x16xf32>, tensor<16x8x3x3xf32> -> tensor<2x16x14x14xf32>
  %z = tgc.conv2d %y, %w1 stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x16x14x14xf32>, tensor<4x16x1x1xf32> -> tensor<2x4x14x14xf32>
  return %z : tensor<2x4x14x14xf32>
}

// -----

// MM-LABEL: function products
// MM: gemm f32 out f32 tf32 m
// MM: gemm f16 out f16 m
// CONV-LABEL: function products
// CONV-NOT: tf32
// OFF-LABEL: function products
// OFF-NOT: tf32
func.func @products(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %h: tensor<64x32xf16>, %g: tensor<32x16xf16>) -> (tensor<64x16xf32>, tensor<64x16xf16>) {
  %c = tgc.matmul %a, %b : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %d = tgc.matmul %h, %g : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  return %c, %d : tensor<64x16xf32>, tensor<64x16xf16>
}
