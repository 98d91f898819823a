// RUN: tgc-opt %s --tgc-fuse --tgc-to-linalg="direct-convolutions=1" --tgc-form-kernels --canonicalize --cse -split-input-file | FileCheck %s

// A direct convolution with its bias and ReLU (one fusion group of kind
// "convolution"): the padded input is a kernel of its own (written once,
// not per tile), and the group is one scf.forall over (n, o, oh) that
// takes 8 output channels per iteration (contraction-rows: a register
// tile's rows for tgc-vectorize-contractions), the convolution, its bias
// and ReLU fused in; each output row is whole (34 columns).

// CHECK-LABEL: func.func @direct_conv_relu
// CHECK: scf.forall {{.*}} -> (tensor<2x5x18x36xf32>)
// CHECK: linalg.generic {{.*}} tgc.own_kernel
// CHECK: scf.forall (%[[N:.*]], %[[O:.*]], %[[OH:.*]]) = (0, 0, 0) to (2, 12, 16) step (1, 8, 1) {{.*}} -> (tensor<2x12x16x34xf32>)
// CHECK: %[[ROWS:.*]] = affine.min {{.*}}(%[[O]])
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x?x1x34xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x5x3x36xf32>, tensor<?x5x3x3xf32>) outs(%{{.*}} : tensor<1x?x1x34xf32>) attrs = {{.*}}tgc.direct_conv
// CHECK: arith.cmpf olt
// CHECK-NOT: scf.forall (
func.func @direct_conv_relu(%x: tensor<2x5x16x34xf32>, %w: tensor<12x5x3x3xf32>, %b: tensor<12xf32>) -> tensor<2x12x16x34xf32> {
  %0 = tgc.conv2d %x, %w bias(%b : tensor<12xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x5x16x34xf32>, tensor<12x5x3x3xf32> -> tensor<2x12x16x34xf32>
  %1 = tgc.relu %0 : tensor<2x12x16x34xf32>
  return %1 : tensor<2x12x16x34xf32>
}

// -----

// A convolution alone (a group of kind "single") with four output
// channels: all of them per iteration, one iteration per output row (the
// loops of one iteration fold away).

// CHECK-LABEL: func.func @few_channels
// CHECK: scf.forall (%{{.*}}) in (16) {{.*}} -> (tensor<1x4x16x16xf32>)
// CHECK: tgc.direct_conv
func.func @few_channels(%x: tensor<1x3x16x16xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x16x16xf32> {
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x3x16x16xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x16x16xf32>
  return %0 : tensor<1x4x16x16xf32>
}
