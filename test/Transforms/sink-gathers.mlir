// RUN: tgc-opt %s --tgc-sink-gathers -split-input-file | FileCheck %s

// nll_loss of log_softmax in primitives: the gather moves to `x`; the row
// statistics (size 1 along the class dim) are used as they are, and the
// [4, 10] result is not computed (`x - max` stays for the sum's exp).
// CHECK-LABEL: func.func @log_softmax_loss
// CHECK: %[[MAX:.*]] = tgc.amax %arg0
// CHECK: %[[SHIFT:.*]] = tgc.sub %arg0, %[[MAX]] : tensor<4x10xf32>, tensor<4x1xf32> -> tensor<4x10xf32>
// CHECK: tgc.exp %[[SHIFT]]
// CHECK: %[[LSE:.*]] = tgc.log
// CHECK: %[[G:.*]] = tgc.gather %arg0, %arg1 dim = 1 : tensor<4x10xf32>, tensor<4x1xi64> -> tensor<4x1xf32>
// CHECK: %[[S:.*]] = tgc.sub %[[G]], %[[MAX]] : tensor<4x1xf32>
// CHECK: %[[R:.*]] = tgc.sub %[[S]], %[[LSE]] : tensor<4x1xf32>
// CHECK-NEXT: return %[[R]]
func.func @log_softmax_loss(%x: tensor<4x10xf32>, %t: tensor<4x1xi64>) -> tensor<4x1xf32> {
  %m = tgc.amax %x dims [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
  %s = tgc.sub %x, %m : tensor<4x10xf32>, tensor<4x1xf32> -> tensor<4x10xf32>
  %e = tgc.exp %s : tensor<4x10xf32>
  %z = tgc.sum %e dims [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
  %l = tgc.log %z : tensor<4x1xf32>
  %r = tgc.sub %s, %l : tensor<4x10xf32>, tensor<4x1xf32> -> tensor<4x10xf32>
  %g = tgc.gather %r, %t dim = 1 : tensor<4x10xf32>, tensor<4x1xi64> -> tensor<4x1xf32>
  return %g : tensor<4x1xf32>
}

// -----

// A scalar operand and a unary op: gathered through both.
// CHECK-LABEL: func.func @unary_and_scalar
// CHECK: %[[G:.*]] = tgc.gather %arg0, %arg1 dim = 0
// CHECK: %[[E:.*]] = tgc.exp %[[G]] : tensor<2x3xf32>
// CHECK: tgc.mul %[[E]], %arg2 : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NOT: tensor<5x3xf32> ->
func.func @unary_and_scalar(%x: tensor<5x3xf32>, %i: tensor<2x3xi64>, %c: tensor<f32>) -> tensor<2x3xf32> {
  %e = tgc.exp %x : tensor<5x3xf32>
  %m = tgc.mul %e, %c : tensor<5x3xf32>, tensor<f32> -> tensor<5x3xf32>
  %g = tgc.gather %m, %i dim = 0 : tensor<5x3xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// An elementwise result with another use stays for it, its gather reads
// the operand. Left alone: the index is narrower than the input in another
// dim; an operand is broadcast along another dim.
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[A:.*]] = tgc.exp %arg0 : tensor<4x10xf32>
// CHECK: %[[GA:.*]] = tgc.gather %arg0, %arg1 dim = 1
// CHECK: tgc.exp %[[GA]] : tensor<4x1xf32>
// CHECK: %[[B:.*]] = tgc.exp %arg0
// CHECK: tgc.gather %[[B]], %arg2 dim = 1
// CHECK: %[[C:.*]] = tgc.add %arg0, %arg3
// CHECK: tgc.gather %[[C]], %arg1 dim = 1
func.func @left_alone(%x: tensor<4x10xf32>, %t: tensor<4x1xi64>, %n: tensor<2x1xi64>, %row: tensor<1x10xf32>)
    -> (tensor<4x1xf32>, tensor<4x10xf32>, tensor<2x1xf32>, tensor<4x1xf32>) {
  %a = tgc.exp %x : tensor<4x10xf32>
  %ga = tgc.gather %a, %t dim = 1 : tensor<4x10xf32>, tensor<4x1xi64> -> tensor<4x1xf32>
  %b = tgc.exp %x : tensor<4x10xf32>
  %gb = tgc.gather %b, %n dim = 1 : tensor<4x10xf32>, tensor<2x1xi64> -> tensor<2x1xf32>
  %c = tgc.add %x, %row : tensor<4x10xf32>, tensor<1x10xf32> -> tensor<4x10xf32>
  %gc = tgc.gather %c, %t dim = 1 : tensor<4x10xf32>, tensor<4x1xi64> -> tensor<4x1xf32>
  return %ga, %a, %gb, %gc : tensor<4x1xf32>, tensor<4x10xf32>, tensor<2x1xf32>, tensor<4x1xf32>
}

// -----

// An input of size 1 along the gathered dim (every index 0) and a larger
// index (the fuzzer's seed 51): the unary op's operand is gathered, not
// broadcast (a convert keeps its operand's shape).
// CHECK-LABEL: func.func @size_one_dim
// CHECK: %[[G:.*]] = tgc.gather %arg0, %arg1 dim = 0 : tensor<1xi64>, tensor<3xi64> -> tensor<3xi64>
// CHECK: tgc.convert %[[G]] : tensor<3xi64> -> tensor<3xf32>
func.func @size_one_dim(%x: tensor<1xi64>, %i: tensor<3xi64>) -> tensor<3xf32> {
  %c = tgc.convert %x : tensor<1xi64> -> tensor<1xf32>
  %g = tgc.gather %c, %i dim = 0 : tensor<1xf32>, tensor<3xi64> -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// A value read along two paths (silu, stacked): gathered once, not once
// per path (exponential in the depth before).
// CHECK-LABEL: func.func @shared_operands
// CHECK-COUNT-1: tgc.gather
// CHECK-NOT: tgc.gather
func.func @shared_operands(%x: tensor<4x10xf32>, %t: tensor<4x1xi64>) -> tensor<4x1xf32> {
  %s1 = tgc.sigmoid %x : tensor<4x10xf32>
  %v1 = tgc.mul %x, %s1 : tensor<4x10xf32>, tensor<4x10xf32> -> tensor<4x10xf32>
  %s2 = tgc.sigmoid %v1 : tensor<4x10xf32>
  %v2 = tgc.mul %v1, %s2 : tensor<4x10xf32>, tensor<4x10xf32> -> tensor<4x10xf32>
  %s3 = tgc.sigmoid %v2 : tensor<4x10xf32>
  %v3 = tgc.mul %v2, %s3 : tensor<4x10xf32>, tensor<4x10xf32> -> tensor<4x10xf32>
  %g = tgc.gather %v3, %t dim = 1 : tensor<4x10xf32>, tensor<4x1xi64> -> tensor<4x1xf32>
  return %g : tensor<4x1xf32>
}

// -----

// A gather of rank 0 (torch.gather of 0-d tensors) is left alone.
// CHECK-LABEL: func.func @rank_zero
// CHECK: %[[E:.*]] = tgc.exp %arg0 : tensor<f32>
// CHECK: tgc.gather %[[E]], %arg1 dim = 0
func.func @rank_zero(%x: tensor<f32>, %i: tensor<i64>) -> tensor<f32> {
  %e = tgc.exp %x : tensor<f32>
  %g = tgc.gather %e, %i dim = 0 : tensor<f32>, tensor<i64> -> tensor<f32>
  return %g : tensor<f32>
}

// -----

// BERT's token-type lookup: ids gathered per position ([1, 128]) and
// expanded over the batch before the embedding. The embedding looks up
// the [1, 128] ids and its rows are expanded; the expanded ids go away.
// CHECK-LABEL: func.func @embedding_of_expand
// CHECK-NOT: tensor<8x128xi64>
// CHECK: %[[E:.*]] = tgc.embedding %arg0, %arg1 : tensor<2x16xf32>, tensor<1x128xi64> -> tensor<1x128x16xf32>
// CHECK: %[[X:.*]] = tgc.expand %[[E]] : tensor<1x128x16xf32> -> tensor<8x128x16xf32>
// CHECK: tgc.add %arg2, %[[X]]
func.func @embedding_of_expand(%w: tensor<2x16xf32>, %ids: tensor<1x128xi64>, %words: tensor<8x128x16xf32>) -> tensor<8x128x16xf32> {
  %x = tgc.expand %ids : tensor<1x128xi64> -> tensor<8x128xi64>
  %e = tgc.embedding %w, %x : tensor<2x16xf32>, tensor<8x128xi64> -> tensor<8x128x16xf32>
  %s = tgc.add %words, %e : tensor<8x128x16xf32>, tensor<8x128x16xf32> -> tensor<8x128x16xf32>
  return %s : tensor<8x128x16xf32>
}

// -----

// New leading dims of the indices, and an expand that other ops read too
// (it stays for them).
// CHECK-LABEL: func.func @embedding_of_expand_new_dims
// CHECK: %[[X:.*]] = tgc.expand %arg1 : tensor<5xi64> -> tensor<3x5xi64>
// CHECK: %[[E:.*]] = tgc.embedding %arg0, %arg1 : tensor<10x4xf32>, tensor<5xi64> -> tensor<5x4xf32>
// CHECK: %[[R:.*]] = tgc.expand %[[E]] : tensor<5x4xf32> -> tensor<3x5x4xf32>
// CHECK: return %[[R]], %[[X]]
func.func @embedding_of_expand_new_dims(%w: tensor<10x4xf32>, %ids: tensor<5xi64>) -> (tensor<3x5x4xf32>, tensor<3x5xi64>) {
  %x = tgc.expand %ids : tensor<5xi64> -> tensor<3x5xi64>
  %e = tgc.embedding %w, %x : tensor<10x4xf32>, tensor<3x5xi64> -> tensor<3x5x4xf32>
  return %e, %x : tensor<3x5x4xf32>, tensor<3x5xi64>
}

// -----

// Dynamic sizes: left alone.
// CHECK-LABEL: func.func @embedding_of_dynamic_expand
// CHECK: %[[X:.*]] = tgc.expand %arg1 [%arg2]
// CHECK: tgc.embedding %arg0, %[[X]]
func.func @embedding_of_dynamic_expand(%w: tensor<10x4xf32>, %ids: tensor<1x5xi64>, %b: index) -> tensor<?x5x4xf32> {
  %x = tgc.expand %ids [%b] : tensor<1x5xi64> -> tensor<?x5xi64>
  %e = tgc.embedding %w, %x : tensor<10x4xf32>, tensor<?x5xi64> -> tensor<?x5x4xf32>
  return %e : tensor<?x5x4xf32>
}

// -----

// An expansion to no elements looks nothing up (and checks no index, as
// eager): left alone.
// CHECK-LABEL: func.func @embedding_of_empty_expand
// CHECK: %[[X:.*]] = tgc.expand %arg1 : tensor<1x5xi64> -> tensor<0x5xi64>
// CHECK: tgc.embedding %arg0, %[[X]]
func.func @embedding_of_empty_expand(%w: tensor<10x4xf32>, %ids: tensor<1x5xi64>) -> tensor<0x5x4xf32> {
  %x = tgc.expand %ids : tensor<1x5xi64> -> tensor<0x5xi64>
  %e = tgc.embedding %w, %x : tensor<10x4xf32>, tensor<0x5xi64> -> tensor<0x5x4xf32>
  return %e : tensor<0x5x4xf32>
}
