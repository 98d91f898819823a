// RUN: tgc-opt %s --tgc-to-linalg="im2col-batch-columns=1" -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-to-linalg -split-input-file | FileCheck %s --check-prefix=PER-IMAGE

// With im2col-batch-columns (the CPU pipeline), an im2col convolution whose
// images have fewer than 256 outputs gathers its patches as [C, kH, kW,
// N, H', W'], multiplies [O, C kH kW] by [C kH kW, N H' W'] once, and
// transposes the [O, N, H', W'] product to [N, O, H', W']; otherwise the
// product is one per image, the weight broadcast over the batch.

// CHECK-LABEL: func.func @small_images
// CHECK: tensor.pad
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x3x3x?x4x4xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3, 4, 5]] {{.*}} : tensor<4x3x3x?x4x4xf32> into tensor<36x?xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<6x36xf32>, tensor<36x?xf32>) outs(%{{.*}} : tensor<6x?xf32>)
// CHECK: tensor.expand_shape {{.*}} : tensor<6x?xf32> into tensor<6x?x4x4xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<6x?x4x4xf32>) outs(%{{.*}} : tensor<?x6x4x4xf32>)
// PER-IMAGE-LABEL: func.func @small_images
// PER-IMAGE: outs(%{{.*}} : tensor<?x4x3x3x4x4xf32>)
func.func @small_images(%x: tensor<?x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<?x6x4x4xf32> {
  %y = tgc.conv2d %x, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<?x6x4x4xf32>
  return %y : tensor<?x6x4x4xf32>
}

// -----

// 16 x 16 = 256 outputs per image: a product per image.
// CHECK-LABEL: func.func @large_images
// CHECK: outs(%{{.*}} : tensor<2x4x3x3x16x16xf32>)
func.func @large_images(%x: tensor<2x4x16x16xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<2x6x16x16xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x4x16x16xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x16x16xf32>
  return %y : tensor<2x6x16x16xf32>
}
