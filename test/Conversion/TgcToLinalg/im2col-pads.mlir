// RUN: tgc-opt %s --tgc-to-linalg="im2col-pads=1" --canonicalize | FileCheck %s
// RUN: tgc-opt %s --tgc-to-linalg | FileCheck %s --check-prefix=COPY

// With im2col-pads (the GPU pipeline), a padded convolution over static
// spatial sizes gathers its patches from the input itself: each patch
// element reads the clamped position and selects zero outside the input.
// Without it, the patches read a padded copy (tensor.pad).

// CHECK-LABEL: func.func @padded
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<?x4x3x3x8x8xf32>)
// CHECK: %[[H:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: %[[HOK:.*]] = arith.andi
// CHECK: %[[HC:.*]] = arith.select %[[HOK]], %[[H]], %c0
// CHECK: %[[W:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: %[[WOK:.*]] = arith.andi
// CHECK: %[[INSIDE:.*]] = arith.andi %[[HOK]], %[[WOK]] : i1
// CHECK: %[[WC:.*]] = arith.select %[[WOK]], %[[W]], %c0
// CHECK: %[[V:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}, %[[HC]], %[[WC]]]
// CHECK: arith.select %[[INSIDE]], %[[V]], %cst
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// COPY-LABEL: func.func @padded
// COPY: tensor.pad
// COPY-NOT: tensor.extract
func.func @padded(%x: tensor<?x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<?x6x8x8xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<?x6x8x8xf32>
  return %y : tensor<?x6x8x8xf32>
}

// A dynamic spatial size keeps the padded copy (the input may be empty,
// and then no clamped position is in bounds).
// CHECK-LABEL: func.func @dynamic_height
// CHECK: tensor.pad
func.func @dynamic_height(%x: tensor<1x4x?x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x?x8xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x4x?x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x?x8xf32>
  return %y : tensor<1x6x?x8xf32>
}

// A padded max pool over static spatial sizes reads its input in place
// too: the window position clamped, the lowest value outside it, and the
// NaN-propagating maximum of linalg's pooling op. Without the option (the
// CPU): a padded copy and linalg.pooling_nchw_max.
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: tensor.extract %arg0
// CHECK: arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.maximumf
// COPY-LABEL: func.func @max_pool
// COPY: tensor.pad
// COPY: linalg.pooling_nchw_max
func.func @max_pool(%x: tensor<?x4x9x9xf32>) -> tensor<?x4x5x5xf32> {
  %y = tgc.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  return %y : tensor<?x4x5x5xf32>
}
