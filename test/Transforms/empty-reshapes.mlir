// RUN: tgc-opt %s -tgc-empty-reshapes -split-input-file | FileCheck %s

// A reshape of a tensor without elements (a static size 0 in its source,
// in what its source is a cast of, or in its result) becomes a
// tensor.empty of its result's sizes: bufferization gave the collapse a
// buffer type the memref verifier rejects and the expand a division by
// zero (docs/generated/passes: tgc-empty-reshapes).

// CHECK-LABEL: func.func @collapse
// CHECK-NOT: collapse_shape
// CHECK: tensor.dim %arg0, %c3
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf64>
func.func @collapse(%x: tensor<0x?x4x?xf64>) -> tensor<?x?xf64> {
  %0 = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<0x?x4x?xf64> into tensor<?x?xf64>
  return %0 : tensor<?x?xf64>
}

// CHECK-LABEL: func.func @expand
// CHECK-NOT: expand_shape
// CHECK: tensor.empty(%arg1) : tensor<0x?x4x2xf64>
func.func @expand(%x: tensor<?x2xf64>, %d: index) -> tensor<0x?x4x2xf64> {
  %0 = tensor.expand_shape %x [[0, 1, 2], [3]] output_shape [0, %d, 4, 2] : tensor<?x2xf64> into tensor<0x?x4x2xf64>
  return %0 : tensor<0x?x4x2xf64>
}

// CHECK-LABEL: func.func @reshape_of_cast
// CHECK-NOT: tensor.reshape
// CHECK: %[[N:.*]] = tensor.extract %arg1[%c3] : tensor<4xindex>
// CHECK: tensor.empty(%[[N]]) : tensor<1x4x1x?xf64>
func.func @reshape_of_cast(%x: tensor<0x?x4x2xf64>, %shape: tensor<4xindex>) -> tensor<1x4x1x?xf64> {
  %c = tensor.cast %x : tensor<0x?x4x2xf64> to tensor<?x?x4x2xf64>
  %0 = tensor.reshape %c(%shape) : (tensor<?x?x4x2xf64>, tensor<4xindex>) -> tensor<1x4x1x?xf64>
  return %0 : tensor<1x4x1x?xf64>
}

// -----

// Reshapes of tensors that may hold elements stay.

// CHECK-LABEL: func.func @not_empty
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
// CHECK-NOT: tensor.empty
func.func @not_empty(%x: tensor<1x?x4x?xf64>, %d: index) -> (tensor<?x?xf64>, tensor<?x1x4xf64>) {
  %0 = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<1x?x4x?xf64> into tensor<?x?xf64>
  %y = tensor.collapse_shape %x [[0, 1, 2, 3]] : tensor<1x?x4x?xf64> into tensor<?xf64>
  %1 = tensor.expand_shape %y [[0, 1, 2]] output_shape [%d, 1, 4] : tensor<?xf64> into tensor<?x1x4xf64>
  return %0, %1 : tensor<?x?xf64>, tensor<?x1x4xf64>
}
