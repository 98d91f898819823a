// RUN: tgc-opt %s -tgc-decompose -allow-unregistered-dialect -split-input-file | FileCheck %s

// A pointwise convolution is one matmul of the weight [O, C] with the
// input [N, C, H*W]; the reshapes keep the batch size as the input's own.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<?x16x8x8xf32>, %[[W:.*]]: tensor<32x16x1x1xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x16x8x8xf32>
// CHECK: %[[XF:.*]] = tgc.reshape %[[X]] [%[[N]]] : tensor<?x16x8x8xf32> -> tensor<?x16x64xf32>
// CHECK: %[[WF:.*]] = tgc.reshape %[[W]] : tensor<32x16x1x1xf32> -> tensor<32x16xf32>
// CHECK: %[[Y:.*]] = tgc.matmul %[[WF]], %[[XF]] : tensor<32x16xf32>, tensor<?x16x64xf32> -> tensor<?x32x64xf32>
// CHECK: %[[BC:.*]] = tgc.reshape %[[B]] : tensor<32xf32> -> tensor<32x1xf32>
// CHECK: %[[YB:.*]] = tgc.add %[[Y]], %[[BC]] : tensor<?x32x64xf32>, tensor<32x1xf32> -> tensor<?x32x64xf32>
// CHECK: %[[M:.*]] = tensor.dim %[[YB]], %{{.*}} : tensor<?x32x64xf32>
// CHECK: %[[R:.*]] = tgc.reshape %[[YB]] [%[[M]]] : tensor<?x32x64xf32> -> tensor<?x32x8x8xf32>
// CHECK: return %[[R]]
// CHECK-NOT: tgc.conv2d
func.func @pointwise(%x: tensor<?x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %b: tensor<32xf32>) -> tensor<?x32x8x8xf32> {
  %y = tgc.conv2d %x, %w bias(%b : tensor<32xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<?x16x8x8xf32>, tensor<32x16x1x1xf32> -> tensor<?x32x8x8xf32>
  return %y : tensor<?x32x8x8xf32>
}

// -----

// Unbatched, no bias.
// CHECK-LABEL: func.func @pointwise_unbatched
// CHECK: tgc.matmul %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x30xf32> -> tensor<8x30xf32>
// CHECK: tgc.reshape %{{.*}} : tensor<8x30xf32> -> tensor<8x5x6xf32>
func.func @pointwise_unbatched(%x: tensor<4x5x6xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<8x5x6xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<4x5x6xf32>, tensor<8x4x1x1xf32> -> tensor<8x5x6xf32>
  return %y : tensor<8x5x6xf32>
}

// -----

// Not rewritten: a 3x3 kernel, a stride, padding, groups, dynamic spatial
// sizes, and a bf16 bias (the convolution adds it before rounding).
// CHECK-LABEL: func.func @not_pointwise
// CHECK-COUNT-6: tgc.conv2d
// CHECK-NOT: tgc.matmul
func.func @not_pointwise(%x: tensor<2x4x6x6xf32>, %w3: tensor<8x4x3x3xf32>, %w1: tensor<8x4x1x1xf32>,
                         %wg: tensor<8x2x1x1xf32>, %xd: tensor<2x4x?x6xf32>,
                         %xh: tensor<2x4x6x6xbf16>, %wh: tensor<8x4x1x1xbf16>, %bh: tensor<8xbf16>) {
  %0 = tgc.conv2d %x, %w3 stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x4x6x6xf32>, tensor<8x4x3x3xf32> -> tensor<2x8x4x4xf32>
  %1 = tgc.conv2d %x, %w1 stride [2, 2] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x4x6x6xf32>, tensor<8x4x1x1xf32> -> tensor<2x8x3x3xf32>
  %2 = tgc.conv2d %x, %w1 stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x4x6x6xf32>, tensor<8x4x1x1xf32> -> tensor<2x8x8x8xf32>
  %3 = tgc.conv2d %x, %wg stride [1, 1] padding [0, 0] dilation [1, 1] groups = 2 : tensor<2x4x6x6xf32>, tensor<8x2x1x1xf32> -> tensor<2x8x6x6xf32>
  %4 = tgc.conv2d %xd, %w1 stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x4x?x6xf32>, tensor<8x4x1x1xf32> -> tensor<2x8x?x6xf32>
  %5 = tgc.conv2d %xh, %wh bias(%bh : tensor<8xbf16>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x4x6x6xbf16>, tensor<8x4x1x1xbf16> -> tensor<2x8x6x6xbf16>
  "test.use"(%0, %1, %2, %3, %4, %5) : (tensor<2x8x4x4xf32>, tensor<2x8x3x3xf32>, tensor<2x8x8x8xf32>, tensor<2x8x6x6xf32>, tensor<2x8x?x6xf32>, tensor<2x8x6x6xbf16>) -> ()
  return
}

// -----

// Global pools are reductions over the spatial dims.
// CHECK-LABEL: func.func @global_pools
// CHECK: tgc.amax %{{.*}} dims [2, 3] keepdim : tensor<?x16x7x7xf32> -> tensor<?x16x1x1xf32>
// CHECK: tgc.mean %{{.*}} dims [2, 3] keepdim : tensor<?x16x7x7xf32> -> tensor<?x16x1x1xf32>
// CHECK: tgc.mean %{{.*}} dims [1, 2] keepdim : tensor<16x7x7xf32> -> tensor<16x1x1xf32>
func.func @global_pools(%x: tensor<?x16x7x7xf32>, %u: tensor<16x7x7xf32>) -> (tensor<?x16x1x1xf32>, tensor<?x16x1x1xf32>, tensor<16x1x1xf32>) {
  %0 = tgc.max_pool2d %x kernel [7, 7] stride [7, 7] padding [0, 0] dilation [1, 1] : tensor<?x16x7x7xf32> -> tensor<?x16x1x1xf32>
  %1 = tgc.avg_pool2d %x kernel [7, 7] stride [1, 1] padding [0, 0] ceil_mode : tensor<?x16x7x7xf32> -> tensor<?x16x1x1xf32>
  %2 = tgc.avg_pool2d %u kernel [7, 7] stride [7, 7] padding [0, 0] : tensor<16x7x7xf32> -> tensor<16x1x1xf32>
  return %0, %1, %2 : tensor<?x16x1x1xf32>, tensor<?x16x1x1xf32>, tensor<16x1x1xf32>
}

// -----

// Not global: a smaller window, padding, and a divisor override.
// CHECK-LABEL: func.func @not_global
// CHECK-NOT: tgc.amax
// CHECK-NOT: tgc.mean
func.func @not_global(%x: tensor<2x16x7x7xf32>) {
  %0 = tgc.max_pool2d %x kernel [3, 3] stride [3, 3] padding [0, 0] dilation [1, 1] : tensor<2x16x7x7xf32> -> tensor<2x16x2x2xf32>
  %1 = tgc.avg_pool2d %x kernel [7, 7] stride [1, 1] padding [1, 1] : tensor<2x16x7x7xf32> -> tensor<2x16x3x3xf32>
  %2 = tgc.avg_pool2d %x kernel [7, 7] stride [7, 7] padding [0, 0] {divisor_override = 5 : i64} : tensor<2x16x7x7xf32> -> tensor<2x16x1x1xf32>
  "test.use"(%0, %1, %2) : (tensor<2x16x2x2xf32>, tensor<2x16x3x3xf32>, tensor<2x16x1x1xf32>) -> ()
  return
}

// -----

// nll_loss's backward over a vocabulary: the sum of a one-hot row is its
// one value. `where(iota == t & t != -100, g, 0)` summed over the iota's dim
// becomes `where(t != -100 & 0 <= t < 10, g + 0.0, 0)` (the + 0.0 makes
// -0.0 +0.0, as the sum does): no reduction, nothing computed per word.
// CHECK-LABEL: func.func @one_hot_sum
// CHECK-SAME: (%[[T:.*]]: tensor<4x1xi64>, %[[G:.*]]: tensor<f32>)
// CHECK-NOT: tgc.sum
// CHECK-DAG: %[[Z:.*]] = tgc.constant dense<0> : tensor<i64>
// CHECK-DAG: %[[N:.*]] = tgc.constant dense<10> : tensor<i64>
// CHECK-DAG: %[[F0:.*]] = tgc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[GE:.*]] = tgc.cmp ge, %[[T]], %[[Z]]
// CHECK-DAG: %[[LT:.*]] = tgc.cmp lt, %[[T]], %[[N]]
// CHECK-DAG: %[[IN:.*]] = tgc.logical_and %[[GE]], %[[LT]]
// CHECK-DAG: %[[KEEP:.*]] = tgc.cmp ne, %[[T]]
// CHECK-DAG: %[[C:.*]] = tgc.logical_and %[[KEEP]], %[[IN]]
// CHECK-DAG: %[[V:.*]] = tgc.add %[[G]], %[[F0]]
// CHECK: %[[R:.*]] = tgc.where %[[C]], %[[V]], %[[F0]] : tensor<4x1xi1>, tensor<f32>, tensor<f32> -> tensor<4x1xf32>
// CHECK: return %[[R]]
func.func @one_hot_sum(%t: tensor<4x1xi64>, %g: tensor<f32>) -> tensor<4x1xf32> {
  %i = tgc.iota 0 : i64, 1 : i64 : tensor<10xi64>
  %r = tgc.reshape %i : tensor<10xi64> -> tensor<1x10xi64>
  %eq = tgc.cmp eq, %r, %t : tensor<1x10xi64>, tensor<4x1xi64> -> tensor<4x10xi1>
  %ignore = tgc.constant dense<-100> : tensor<i64>
  %keep = tgc.cmp ne, %t, %ignore : tensor<4x1xi64>, tensor<i64> -> tensor<4x1xi1>
  %m = tgc.logical_and %eq, %keep : tensor<4x10xi1>, tensor<4x1xi1> -> tensor<4x10xi1>
  %zero = tgc.full 0.0 : f32 : tensor<f32>
  %w = tgc.where %m, %g, %zero : tensor<4x10xi1>, tensor<f32>, tensor<f32> -> tensor<4x10xf32>
  %s = tgc.sum %w dims [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// -----

// Without keepdim the folded row is reshaped to the sum's shape; the
// comparison may have the iota on either side.
// CHECK-LABEL: func.func @one_hot_sum_dropped
// CHECK-NOT: tgc.sum
// CHECK: %[[R:.*]] = tgc.where {{.*}} -> tensor<4x1xf32>
// CHECK: %[[S:.*]] = tgc.reshape %[[R]] : tensor<4x1xf32> -> tensor<4xf32>
// CHECK: return %[[S]]
func.func @one_hot_sum_dropped(%t: tensor<4x1xi64>, %g: tensor<4x1xf32>) -> tensor<4xf32> {
  %i = tgc.iota 0 : i64, 1 : i64 : tensor<10xi64>
  %r = tgc.reshape %i : tensor<10xi64> -> tensor<1x10xi64>
  %eq = tgc.cmp eq, %t, %r : tensor<4x1xi64>, tensor<1x10xi64> -> tensor<4x10xi1>
  %zero = tgc.constant dense<0.0> : tensor<f32>
  %w = tgc.where %eq, %g, %zero : tensor<4x10xi1>, tensor<4x1xf32>, tensor<f32> -> tensor<4x10xf32>
  %s = tgc.sum %w dims [1] : tensor<4x10xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Not one-hot sums, kept: the value varies along the summed dim; the iota
// starts at 1; the else value is -0.0 (a row without a match sums to -0.0,
// the fold would give +0.0); a mask varies along the summed dim (more than
// one position may be kept).
// CHECK-LABEL: func.func @not_one_hot_sums
// CHECK-COUNT-4: tgc.sum
func.func @not_one_hot_sums(%t: tensor<4x1xi64>, %g: tensor<4x10xf32>, %h: tensor<f32>, %m: tensor<4x10xi1>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %i = tgc.iota 0 : i64, 1 : i64 : tensor<10xi64>
  %r = tgc.reshape %i : tensor<10xi64> -> tensor<1x10xi64>
  %eq = tgc.cmp eq, %r, %t : tensor<1x10xi64>, tensor<4x1xi64> -> tensor<4x10xi1>
  %zero = tgc.constant dense<0.0> : tensor<f32>
  %w0 = tgc.where %eq, %g, %zero : tensor<4x10xi1>, tensor<4x10xf32>, tensor<f32> -> tensor<4x10xf32>
  %s0 = tgc.sum %w0 dims [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
  %i1 = tgc.iota 1 : i64, 1 : i64 : tensor<10xi64>
  %r1 = tgc.reshape %i1 : tensor<10xi64> -> tensor<1x10xi64>
  %eq1 = tgc.cmp eq, %r1, %t : tensor<1x10xi64>, tensor<4x1xi64> -> tensor<4x10xi1>
  %w1 = tgc.where %eq1, %h, %zero : tensor<4x10xi1>, tensor<f32>, tensor<f32> -> tensor<4x10xf32>
  %s1 = tgc.sum %w1 dims [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
  %negzero = tgc.constant dense<-0.0> : tensor<f32>
  %w2 = tgc.where %eq, %h, %negzero : tensor<4x10xi1>, tensor<f32>, tensor<f32> -> tensor<4x10xf32>
  %s2 = tgc.sum %w2 dims [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
  %both = tgc.logical_and %eq, %m : tensor<4x10xi1>, tensor<4x10xi1> -> tensor<4x10xi1>
  %w3 = tgc.where %both, %h, %zero : tensor<4x10xi1>, tensor<f32>, tensor<f32> -> tensor<4x10xf32>
  %s3 = tgc.sum %w3 dims [1] keepdim : tensor<4x10xf32> -> tensor<4x1xf32>
  return %s0, %s1, %s2, %s3 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// A concat of reshapes that merge the concat dim with the dims after it,
// all the same way (GPT-2's query, key and value gradients [B, T, H, D]
// merged to [B, T, H*D]), is the reshape of a concat along the group's first
// dim: the transposes then write their slices of the result in place.
// CHECK-LABEL: func.func @concat_of_merges
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4x5xf32>, %[[B:.*]]: tensor<2x3x2x5xf32>)
// CHECK: %[[C:.*]] = tgc.concat %[[A]], %[[B]] dim = 2 : (tensor<2x3x4x5xf32>, tensor<2x3x2x5xf32>) -> tensor<2x3x6x5xf32>
// CHECK: %[[R:.*]] = tgc.reshape %[[C]] : tensor<2x3x6x5xf32> -> tensor<2x3x30xf32>
// CHECK: return %[[R]]
func.func @concat_of_merges(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x2x5xf32>) -> tensor<2x3x30xf32> {
  %ra = tgc.reshape %a : tensor<2x3x4x5xf32> -> tensor<2x3x20xf32>
  %rb = tgc.reshape %b : tensor<2x3x2x5xf32> -> tensor<2x3x10xf32>
  %c = tgc.concat %ra, %rb dim = 2 : (tensor<2x3x20xf32>, tensor<2x3x10xf32>) -> tensor<2x3x30xf32>
  return %c : tensor<2x3x30xf32>
}

// -----

// Kept: the merged inner dims differ (4x5 and 2x10 interleave otherwise); a
// reshape that splits rather than merges; an input that is not a reshape.
// CHECK-LABEL: func.func @concat_not_of_merges
// CHECK: tgc.concat {{.*}} dim = 2 : (tensor<2x3x20xf32>, tensor<2x3x20xf32>)
// CHECK: tgc.concat {{.*}} dim = 3 : (tensor<2x3x2x10xf32>, tensor<2x3x2x10xf32>)
// CHECK: tgc.concat {{.*}} dim = 2 : (tensor<2x3x20xf32>, tensor<2x3x20xf32>)
// CHECK-NOT: tgc.concat
func.func @concat_not_of_merges(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x2x10xf32>, %c: tensor<2x3x20xf32>, %d: tensor<2x3x2x10xf32>) -> (tensor<2x3x40xf32>, tensor<2x3x2x20xf32>, tensor<2x3x40xf32>) {
  %ra = tgc.reshape %a : tensor<2x3x4x5xf32> -> tensor<2x3x20xf32>
  %rb = tgc.reshape %b : tensor<2x3x2x10xf32> -> tensor<2x3x20xf32>
  %0 = tgc.concat %ra, %rb dim = 2 : (tensor<2x3x20xf32>, tensor<2x3x20xf32>) -> tensor<2x3x40xf32>
  %sc = tgc.reshape %c : tensor<2x3x20xf32> -> tensor<2x3x2x10xf32>
  %1 = tgc.concat %sc, %d dim = 3 : (tensor<2x3x2x10xf32>, tensor<2x3x2x10xf32>) -> tensor<2x3x2x20xf32>
  %2 = tgc.concat %ra, %c dim = 2 : (tensor<2x3x20xf32>, tensor<2x3x20xf32>) -> tensor<2x3x40xf32>
  return %0, %1, %2 : tensor<2x3x40xf32>, tensor<2x3x2x20xf32>, tensor<2x3x40xf32>
}
