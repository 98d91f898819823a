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
