// RUN: tgc-opt %s --tgc-to-linalg="library-convolutions=1" --canonicalize -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-to-linalg --canonicalize -split-input-file | FileCheck %s --check-prefix=PLAIN

// tgc.conv2d_backward_input and tgc.conv2d_backward_weight as one generic
// each. The input's gradient: loops (n, c, h, w, o, kh, kw), the weight its
// input ([G, O/G, C/G, kH, kW] when grouped), dy read in the body where
// h + p - kh * d is a non-negative multiple of the stride inside dy. The
// weight's gradient: loops (o, c, kh, kw, n, oh, ow), dy its input, the
// convolution's input read at the window element. With
// library-convolutions the f32 ones carry #tgc_gpu.conv with their kind
// (cuDNN's backward operations); without, no mark (a kernel or a loop
// nest runs them); f16 accumulates in f32 and is never marked.

// CHECK-LABEL: func.func @backward_input
// CHECK: linalg.generic {indexing_maps = [#[[W:.*]], #[[O:.*]]], {{.*}} ins(%arg1 : tensor<6x4x3x3xf32>) outs(%{{.*}} : tensor<?x4x8x8xf32>) attrs = {{.*}}tgc_gpu.conv = #tgc_gpu.conv<stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1, kind = backward_data>}
// CHECK: %[[T:.*]] = arith.subi
// CHECK: %[[NN:.*]] = arith.cmpi sge, %[[T]], %c0
// CHECK: %[[C:.*]] = arith.select %[[NN]], %[[T]], %c0
// CHECK: arith.divui %[[C]], %c2
// CHECK: arith.remui %[[C]], %c2
// CHECK: %[[V:.*]] = tensor.extract %arg0
// CHECK: arith.select %{{.*}}, %[[V]], %cst : f32
// PLAIN-LABEL: func.func @backward_input
// PLAIN-NOT: tgc_gpu.conv
// PLAIN: tensor.extract %arg0
func.func @backward_input(%dy: tensor<?x6x4x4xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %dx = tgc.conv2d_backward_input %dy, %w stride [2, 2] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x6x4x4xf32>, tensor<6x4x3x3xf32> -> tensor<?x4x8x8xf32>
  return %dx : tensor<?x4x8x8xf32>
}

// -----

// CHECK: #[[GW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1 floordiv 2, d4, d1 mod 2, d5, d6)>
// CHECK-LABEL: func.func @backward_input_grouped
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK: linalg.generic {indexing_maps = [#[[GW]], {{.*}} ins(%[[E]] : tensor<2x3x2x3x3xf32>) {{.*}} kind = backward_data>}
// CHECK-NOT: arith.remui
// CHECK: tensor.extract %arg0
func.func @backward_input_grouped(%dy: tensor<2x6x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %dx = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 2 : tensor<2x6x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<2x4x8x8xf32>
  return %dx : tensor<2x4x8x8xf32>
}

// -----

// CHECK: #[[DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>
// CHECK-LABEL: func.func @backward_weight
// CHECK: linalg.generic {indexing_maps = [#[[DY]], {{.*}} ins(%arg0 : tensor<?x6x4x4xf32>) outs(%{{.*}} : tensor<6x2x3x3xf32>) attrs = {{.*}}tgc_gpu.conv = #tgc_gpu.conv<stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 2, kind = backward_filter>}
// CHECK: %[[G:.*]] = arith.divui %{{.*}}, %c3
// CHECK: arith.muli %[[G]], %c2
// CHECK: tensor.extract %arg1
// PLAIN-LABEL: func.func @backward_weight
// PLAIN-NOT: tgc_gpu.conv
// PLAIN: tensor.extract %arg1
func.func @backward_weight(%dy: tensor<?x6x4x4xf32>, %x: tensor<?x4x8x8xf32>) -> tensor<6x2x3x3xf32> {
  %dw = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] groups = 2 : tensor<?x6x4x4xf32>, tensor<?x4x8x8xf32> -> tensor<6x2x3x3xf32>
  return %dw : tensor<6x2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @backward_weight_f16
// CHECK-NOT: tgc_gpu.conv
// CHECK: arith.extf
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.truncf
func.func @backward_weight_f16(%dy: tensor<2x6x8x8xf16>, %x: tensor<2x4x8x8xf16>) -> tensor<6x4x3x3xf16> {
  %dw = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x6x8x8xf16>, tensor<2x4x8x8xf16> -> tensor<6x4x3x3xf16>
  return %dw : tensor<6x4x3x3xf16>
}
