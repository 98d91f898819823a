// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round trip of every tgc op, in custom and generic form.

// CHECK-LABEL: func.func @creation
func.func @creation(%n: index) -> (tensor<2x2xi64>, tensor<?x3xf32>, tensor<8xi64>, tensor<?xf32>, tensor<f32>) {
  // CHECK: tgc.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>
  %c = tgc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  // CHECK: tgc.constant dense<1.000000e+00> : tensor<f32>
  %s = tgc.constant dense<1.0> : tensor<f32>
  // CHECK: tgc.full 5.000000e-01 : f32 [%{{.*}}] : tensor<?x3xf32>
  %f = tgc.full 0.5 : f32 [%n] : tensor<?x3xf32>
  // CHECK: tgc.iota 0 : i64, 1 : i64 : tensor<8xi64>
  %i = tgc.iota 0 : i64, 1 : i64 : tensor<8xi64>
  // CHECK: tgc.iota 5.000000e-01 : f32, 2.500000e-01 : f32 [%{{.*}}] : tensor<?xf32>
  %j = tgc.iota 0.5 : f32, 0.25 : f32 [%n] : tensor<?xf32>
  return %c, %f, %i, %j, %s : tensor<2x2xi64>, tensor<?x3xf32>, tensor<8xi64>, tensor<?xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x?xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) {
  // CHECK: tgc.neg %{{.*}} : tensor<4x?xf32>
  %0 = tgc.neg %x : tensor<4x?xf32>
  // CHECK: tgc.abs %{{.*}} : tensor<4xi32>
  %1 = tgc.abs %i : tensor<4xi32>
  // CHECK: tgc.relu
  %2 = tgc.relu %x : tensor<4x?xf32>
  // CHECK: tgc.exp
  %3 = tgc.exp %x : tensor<4x?xf32>
  // CHECK: tgc.exp2
  %4 = tgc.exp2 %x : tensor<4x?xf32>
  // CHECK: tgc.expm1
  %5 = tgc.expm1 %x : tensor<4x?xf32>
  // CHECK: tgc.log
  %6 = tgc.log %x : tensor<4x?xf32>
  // CHECK: tgc.log2
  %7 = tgc.log2 %x : tensor<4x?xf32>
  // CHECK: tgc.log1p
  %8 = tgc.log1p %x : tensor<4x?xf32>
  // CHECK: tgc.sqrt
  %9 = tgc.sqrt %x : tensor<4x?xf32>
  // CHECK: tgc.rsqrt
  %10 = tgc.rsqrt %x : tensor<4x?xf32>
  // CHECK: tgc.sin
  %11 = tgc.sin %x : tensor<4x?xf32>
  // CHECK: tgc.cos
  %12 = tgc.cos %x : tensor<4x?xf32>
  // CHECK: tgc.tanh
  %13 = tgc.tanh %x : tensor<4x?xf32>
  // CHECK: tgc.sigmoid
  %14 = tgc.sigmoid %x : tensor<4x?xf32>
  // CHECK: tgc.erf
  %15 = tgc.erf %x : tensor<4x?xf32>
  // CHECK: tgc.silu
  %16 = tgc.silu %x : tensor<4x?xf32>
  // CHECK: tgc.reciprocal
  %17 = tgc.reciprocal %x : tensor<4x?xf32>
  // CHECK: tgc.floor
  %18 = tgc.floor %x : tensor<4x?xf32>
  // CHECK: tgc.ceil
  %19 = tgc.ceil %x : tensor<4x?xf32>
  // CHECK: tgc.round
  %20 = tgc.round %x : tensor<4x?xf32>
  // CHECK: tgc.logical_not %{{.*}} : tensor<4xi1>
  %21 = tgc.logical_not %b : tensor<4xi1>
  // CHECK: tgc.gelu %{{.*}} : tensor<4x?xf32>
  %22 = tgc.gelu %x : tensor<4x?xf32>
  // CHECK: tgc.gelu %{{.*}} approximate = tanh : tensor<4x?xf32>
  %23 = tgc.gelu %x approximate = tanh : tensor<4x?xf32>
  // CHECK: tgc.clamp %{{.*}} min 0.000000e+00 max 6.000000e+00 : tensor<4x?xf32>
  %24 = tgc.clamp %x min 0.0 max 6.0 : tensor<4x?xf32>
  // CHECK: tgc.clamp %{{.*}} max 3.000000e+00 : tensor<4xi32>
  %25 = tgc.clamp %i max 3.0 : tensor<4xi32>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %s: tensor<f32>, %i: tensor<4xi64>, %b: tensor<4xi1>) {
  // CHECK: tgc.add %{{.*}}, %{{.*}} : tensor<4x8xf32>{{$}}
  %0 = tgc.add %x, %x : tensor<4x8xf32>
  // CHECK: tgc.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = tgc.add %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: tgc.sub %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %2 = tgc.sub %x, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  // CHECK: tgc.mul
  %3 = tgc.mul %x, %x : tensor<4x8xf32>
  // CHECK: tgc.pow
  %4 = tgc.pow %x, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  // CHECK: tgc.maximum
  %5 = tgc.maximum %x, %x : tensor<4x8xf32>
  // CHECK: tgc.minimum
  %6 = tgc.minimum %x, %x : tensor<4x8xf32>
  // CHECK: tgc.remainder
  %7 = tgc.remainder %i, %i : tensor<4xi64>
  // CHECK: tgc.atan2
  %8 = tgc.atan2 %x, %x : tensor<4x8xf32>
  // CHECK: tgc.logical_and
  %9 = tgc.logical_and %b, %b : tensor<4xi1>
  // CHECK: tgc.logical_or
  %10 = tgc.logical_or %b, %b : tensor<4xi1>
  // CHECK: tgc.div %{{.*}}, %{{.*}} : tensor<4x8xf32>{{$}}
  %11 = tgc.div %x, %x : tensor<4x8xf32>
  // CHECK: tgc.div %{{.*}}, %{{.*}} rounding = floor : tensor<4xi64>
  %12 = tgc.div %i, %i rounding = floor : tensor<4xi64>
  // CHECK: tgc.cmp lt, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %13 = tgc.cmp lt, %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  // CHECK: tgc.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %14 = tgc.where %13, %x, %s : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  // CHECK: tgc.convert %{{.*}} : tensor<4x8xf32> -> tensor<4x8xbf16>
  %15 = tgc.convert %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  // CHECK: tgc.convert %{{.*}} : tensor<4xi1> -> tensor<4xi64>
  %16 = tgc.convert %b : tensor<4xi1> -> tensor<4xi64>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x?xf32>, %i: tensor<4x5xi32>) {
  // CHECK: tgc.sum %{{.*}} dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  %0 = tgc.sum %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  // CHECK: tgc.sum %{{.*}} dims [0, 1] keepdim : tensor<4x5xi32> -> tensor<1x1xi32>
  %1 = tgc.sum %i dims [0, 1] keepdim : tensor<4x5xi32> -> tensor<1x1xi32>
  // CHECK: tgc.mean
  %2 = tgc.mean %x dims [0] : tensor<4x?xf32> -> tensor<?xf32>
  // CHECK: tgc.amax
  %3 = tgc.amax %x dims [1] keepdim : tensor<4x?xf32> -> tensor<4x1xf32>
  // CHECK: tgc.amin
  %4 = tgc.amin %i dims [1] : tensor<4x5xi32> -> tensor<4xi32>
  // CHECK: tgc.var %{{.*}} dims [1] {correction = 0 : i64} : tensor<4x?xf32> -> tensor<4xf32>
  %5 = tgc.var %x dims [1] {correction = 0 : i64} : tensor<4x?xf32> -> tensor<4xf32>
  // CHECK: tgc.norm %{{.*}} dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  %6 = tgc.norm %x dims [1] : tensor<4x?xf32> -> tensor<4xf32>
  // CHECK: tgc.norm %{{.*}} dims [1] {p = 1.000000e+00 : f64}
  %7 = tgc.norm %x dims [1] {p = 1.0 : f64} : tensor<4x?xf32> -> tensor<4xf32>
  // CHECK: tgc.argmax %{{.*}} dim 1 : tensor<4x?xf32> -> tensor<4xi64>
  %8 = tgc.argmax %x dim 1 : tensor<4x?xf32> -> tensor<4xi64>
  // CHECK: tgc.argmin %{{.*}} dim 0 keepdim : tensor<4x5xi32> -> tensor<1x5xi64>
  %9 = tgc.argmin %i dim 0 keepdim : tensor<4x5xi32> -> tensor<1x5xi64>
  // CHECK: tgc.max %{{.*}} dim 1 : tensor<4x?xf32> -> tensor<4xf32>, tensor<4xi64>
  %10:2 = tgc.max %x dim 1 : tensor<4x?xf32> -> tensor<4xf32>, tensor<4xi64>
  // CHECK: tgc.min %{{.*}} dim 1 keepdim : tensor<4x5xi32> -> tensor<4x1xi32>, tensor<4x1xi64>
  %11:2 = tgc.min %i dim 1 keepdim : tensor<4x5xi32> -> tensor<4x1xi32>, tensor<4x1xi64>
  // CHECK: tgc.topk %{{.*}} k = 3 dim = 1 : tensor<4x?xf32> -> tensor<4x3xf32>, tensor<4x3xi64>
  %12:2 = tgc.topk %x k = 3 dim = 1 : tensor<4x?xf32> -> tensor<4x3xf32>, tensor<4x3xi64>
  // CHECK: tgc.topk %{{.*}} k = 2 dim = 0 {largest = false, sorted = false}
  %13:2 = tgc.topk %i k = 2 dim = 0 {largest = false, sorted = false} : tensor<4x5xi32> -> tensor<2x5xi32>, tensor<2x5xi64>
  return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<?x4xf32>, %y: tensor<1x8xf32>, %n: index, %m: index) {
  // CHECK: tgc.reshape %{{.*}} : tensor<?x4xf32> -> tensor<?xf32>
  %0 = tgc.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  // CHECK: tgc.reshape %{{.*}} [%{{.*}}, %{{.*}}] : tensor<?xf32> -> tensor<?x?x2xf32>
  %1 = tgc.reshape %0 [%n, %m] : tensor<?xf32> -> tensor<?x?x2xf32>
  // CHECK: tgc.permute %{{.*}} [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  %2 = tgc.permute %x [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  // CHECK: tgc.expand %{{.*}} : tensor<1x8xf32> -> tensor<4x8xf32>
  %3 = tgc.expand %y : tensor<1x8xf32> -> tensor<4x8xf32>
  // CHECK: tgc.expand %{{.*}} [%{{.*}}] : tensor<1x8xf32> -> tensor<3x?x8xf32>
  %4 = tgc.expand %y [%n] : tensor<1x8xf32> -> tensor<3x?x8xf32>
  // CHECK: tgc.slice %{{.*}} dim = 1 start = 0 end = 4 step = 2 : tensor<?x4xf32> -> tensor<?x2xf32>
  %5 = tgc.slice %x dim = 1 start = 0 end = 4 step = 2 : tensor<?x4xf32> -> tensor<?x2xf32>
  // CHECK: tgc.concat %{{.*}}, %{{.*}} dim = 0 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %6 = tgc.concat %x, %x dim = 0 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: tgc.squeeze %{{.*}} dims [0] : tensor<1x8xf32> -> tensor<8xf32>
  %7 = tgc.squeeze %y dims [0] : tensor<1x8xf32> -> tensor<8xf32>
  // CHECK: tgc.unsqueeze %{{.*}} dim = 2 : tensor<?x4xf32> -> tensor<?x4x1xf32>
  %8 = tgc.unsqueeze %x dim = 2 : tensor<?x4xf32> -> tensor<?x4x1xf32>
  // CHECK: tgc.pad %{{.*}} low [0, 1] high [0, 2] value 0.000000e+00 : f32 : tensor<1x8xf32> -> tensor<1x11xf32>
  %9 = tgc.pad %y low [0, 1] high [0, 2] value 0.0 : f32 : tensor<1x8xf32> -> tensor<1x11xf32>
  return
}

// CHECK-LABEL: func.func @indexing
func.func @indexing(%x: tensor<4x8xf32>, %idx: tensor<4x2xi64>, %sel: tensor<3xi32>, %w: tensor<1000x64xf32>, %ids: tensor<?x16xi64>) {
  // CHECK: tgc.gather %{{.*}}, %{{.*}} dim = 1 : tensor<4x8xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
  %0 = tgc.gather %x, %idx dim = 1 : tensor<4x8xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
  // CHECK: tgc.index_select %{{.*}}, %{{.*}} dim = 1 : tensor<4x8xf32>, tensor<3xi32> -> tensor<4x3xf32>
  %1 = tgc.index_select %x, %sel dim = 1 : tensor<4x8xf32>, tensor<3xi32> -> tensor<4x3xf32>
  // CHECK: tgc.embedding %{{.*}}, %{{.*}} : tensor<1000x64xf32>, tensor<?x16xi64> -> tensor<?x16x64xf32>
  %2 = tgc.embedding %w, %ids : tensor<1000x64xf32>, tensor<?x16xi64> -> tensor<?x16x64xf32>
  return
}

// CHECK-LABEL: func.func @philox_uniform
func.func @philox_uniform(%seed: tensor<i64>, %n: index) {
  // CHECK: tgc.philox_uniform %{{.*}} stream = 0 : tensor<i64> -> tensor<8x64xf32>
  %0 = tgc.philox_uniform %seed stream = 0 : tensor<i64> -> tensor<8x64xf32>
  // CHECK: tgc.philox_uniform %{{.*}} stream = 3 [%{{.*}}] : tensor<i64> -> tensor<?x64xbf16>
  %1 = tgc.philox_uniform %seed stream = 3 [%n] : tensor<i64> -> tensor<?x64xbf16>
  return
}

// CHECK-LABEL: func.func @scatter_add
func.func @scatter_add(%base: tensor<8x4xf32>, %idx: tensor<6x4xi64>, %src: tensor<6x4xf32>, %w: tensor<1000x64xf32>, %ids: tensor<?xi32>, %g: tensor<?x64xf32>, %ib: tensor<5xi64>, %ii: tensor<3xi64>, %is: tensor<4xi64>) {
  // CHECK: tgc.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim = 0 : tensor<8x4xf32>, tensor<6x4xi64>, tensor<6x4xf32> -> tensor<8x4xf32>
  %0 = tgc.scatter_add %base, %idx, %src dim = 0 : tensor<8x4xf32>, tensor<6x4xi64>, tensor<6x4xf32> -> tensor<8x4xf32>
  // CHECK: tgc.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim = 0 : tensor<1000x64xf32>, tensor<?xi32>, tensor<?x64xf32> -> tensor<1000x64xf32>
  %1 = tgc.scatter_add %w, %ids, %g dim = 0 : tensor<1000x64xf32>, tensor<?xi32>, tensor<?x64xf32> -> tensor<1000x64xf32>
  // CHECK: tgc.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim = 0 : tensor<5xi64>, tensor<3xi64>, tensor<4xi64> -> tensor<5xi64>
  %2 = tgc.scatter_add %ib, %ii, %is dim = 0 : tensor<5xi64>, tensor<3xi64>, tensor<4xi64> -> tensor<5xi64>
  return
}

// CHECK-LABEL: func.func @linalg
func.func @linalg(%a: tensor<?x64xf32>, %w: tensor<64x32xf32>, %b3: tensor<?x3x4xf32>, %c3: tensor<?x4x5xf32>, %lw: tensor<128x64xf32>, %lb: tensor<128xf32>, %spd: tensor<?x4x4xf64>) {
  // CHECK: tgc.matmul %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64x32xf32> -> tensor<?x32xf32>
  %0 = tgc.matmul %a, %w : tensor<?x64xf32>, tensor<64x32xf32> -> tensor<?x32xf32>
  // CHECK: tgc.bmm %{{.*}}, %{{.*}} : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
  %1 = tgc.bmm %b3, %c3 : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
  // CHECK: tgc.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %2 = tgc.linear %a, %lw, %lb : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  // CHECK: tgc.linear %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<128x64xf32> -> tensor<?x128xf32>
  %3 = tgc.linear %a, %lw : tensor<?x64xf32>, tensor<128x64xf32> -> tensor<?x128xf32>
  // CHECK: tgc.cholesky %{{.*}} : tensor<?x4x4xf64>
  %4 = tgc.cholesky %spd : tensor<?x4x4xf64>
  // CHECK: tgc.cholesky %{{.*}} upper : tensor<?x4x4xf64>
  %5 = tgc.cholesky %spd upper : tensor<?x4x4xf64>
  return
}

// CHECK-LABEL: func.func @nn
func.func @nn(%x: tensor<?x768xf32>, %w: tensor<768xf32>, %q: tensor<2x8x?x64xf16>, %mask: tensor<?x?xi1>, %img: tensor<?x3x32x32xf32>, %k: tensor<16x3x3x3xf32>, %kb: tensor<16xf32>) {
  // CHECK: tgc.softmax %{{.*}} dim = 1 : tensor<?x768xf32>
  %0 = tgc.softmax %x dim = 1 : tensor<?x768xf32>
  // CHECK: tgc.log_softmax %{{.*}} dim = 0 : tensor<?x768xf32>
  %1 = tgc.log_softmax %x dim = 0 : tensor<?x768xf32>
  // CHECK: tgc.layer_norm %{{.*}} weight(%{{.*}} : tensor<768xf32>) bias(%{{.*}} : tensor<768xf32>) normalized_rank = 1 eps = 1.000000e-05 : tensor<?x768xf32>
  %2 = tgc.layer_norm %x weight(%w : tensor<768xf32>) bias(%w : tensor<768xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x768xf32>
  // CHECK: tgc.layer_norm %{{.*}} normalized_rank = 2 eps = 1.000000e-03 : tensor<?x768xf32>
  %3 = tgc.layer_norm %x normalized_rank = 2 eps = 1.0e-03 : tensor<?x768xf32>
  // CHECK: tgc.rms_norm %{{.*}} weight(%{{.*}} : tensor<768xf32>) normalized_rank = 1 eps = 9.9999999999999995E-7 : tensor<?x768xf32>
  %4 = tgc.rms_norm %x weight(%w : tensor<768xf32>) normalized_rank = 1 eps = 1.0e-06 : tensor<?x768xf32>
  // CHECK: tgc.rms_norm %{{.*}} normalized_rank = 1 : tensor<?x768xf32>
  %5 = tgc.rms_norm %x normalized_rank = 1 : tensor<?x768xf32>
  // CHECK: tgc.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} causal : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16> -> tensor<2x8x?x64xf16>
  %6 = tgc.scaled_dot_product_attention %q, %q, %q causal : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16> -> tensor<2x8x?x64xf16>
  // CHECK: tgc.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<?x?xi1>) {scale = 1.250000e-01 : f64}
  %7 = tgc.scaled_dot_product_attention %q, %q, %q mask(%mask : tensor<?x?xi1>) {scale = 0.125 : f64} : tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16> -> tensor<2x8x?x64xf16>
  // CHECK: tgc.conv2d %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<16xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x16x32x32xf32>
  %8 = tgc.conv2d %img, %k bias(%kb : tensor<16xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x16x32x32xf32>
  // CHECK: tgc.conv2d_backward_input %{{.*}}, %{{.*}} stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x16x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x3x32x32xf32>
  %dx8 = tgc.conv2d_backward_input %8, %k stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x16x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x3x32x32xf32>
  // CHECK: tgc.conv2d_backward_weight %{{.*}}, %{{.*}} kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x16x32x32xf32>, tensor<?x3x32x32xf32> -> tensor<16x3x3x3xf32>
  %dw8 = tgc.conv2d_backward_weight %8, %img kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x16x32x32xf32>, tensor<?x3x32x32xf32> -> tensor<16x3x3x3xf32>
  // CHECK: tgc.conv2d %{{.*}}, %{{.*}} stride [2, 2] padding [0, 0] dilation [1, 1] groups = 1 : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x16x15x15xf32>
  %9 = tgc.conv2d %img, %k stride [2, 2] padding [0, 0] dilation [1, 1] groups = 1 : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x16x15x15xf32>
  // CHECK: tgc.max_pool2d %{{.*}} kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<?x16x32x32xf32> -> tensor<?x16x16x16xf32>
  %10 = tgc.max_pool2d %8 kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<?x16x32x32xf32> -> tensor<?x16x16x16xf32>
  // CHECK: tgc.max_pool2d %{{.*}} kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] ceil_mode : tensor<?x16x32x32xf32> -> tensor<?x16x17x17xf32>
  %11 = tgc.max_pool2d %8 kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] ceil_mode : tensor<?x16x32x32xf32> -> tensor<?x16x17x17xf32>
  // In ceil mode a window wider than the input that starts inside it: one output.
  // CHECK: tgc.max_pool2d %{{.*}} kernel [4, 4] stride [4, 4] padding [0, 0] dilation [1, 1] ceil_mode : tensor<1x1x3x3xf32> -> tensor<1x1x1x1xf32>
  %small = tgc.constant dense<1.0> : tensor<1x1x3x3xf32>
  %13 = tgc.max_pool2d %small kernel [4, 4] stride [4, 4] padding [0, 0] dilation [1, 1] ceil_mode : tensor<1x1x3x3xf32> -> tensor<1x1x1x1xf32>
  // CHECK: tgc.avg_pool2d %{{.*}} kernel [2, 2] stride [2, 2] padding [0, 0] {count_include_pad = false, divisor_override = 3 : i64} : tensor<?x3x32x32xf32> -> tensor<?x3x16x16xf32>
  %12 = tgc.avg_pool2d %img kernel [2, 2] stride [2, 2] padding [0, 0] {count_include_pad = false, divisor_override = 3 : i64} : tensor<?x3x32x32xf32> -> tensor<?x3x16x16xf32>
  return
}

// CHECK-LABEL: func.func @topk_out
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[V:.*]]: tensor<10xf32>, %[[I:.*]]: tensor<10xi64>)
func.func @topk_out(%x: tensor<?xf32>, %v: tensor<10xf32>, %i: tensor<10xi64>) {
  // CHECK: %[[VALS:.*]], %[[IDX:.*]] = tgc.topk %[[X]] k = 10 dim = 0
  %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
  // CHECK: tgc.write_out %[[VALS]] into %[[V]] : tensor<10xf32> into tensor<10xf32>
  tgc.write_out %values into %v : tensor<10xf32> into tensor<10xf32>
  // CHECK: tgc.write_out %[[IDX]] into %[[I]] : tensor<10xi64> into tensor<10xi64>
  tgc.write_out %indices into %i : tensor<10xi64> into tensor<10xi64>
  return
}

// CHECK-LABEL: func.func @bmm_out
func.func @bmm_out(%a: tensor<?x3x4xf32>, %b: tensor<?x4x5xf32>, %c: tensor<?x3x5xf32>) {
  %r = tgc.bmm %a, %b : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
  // CHECK: tgc.write_out %{{.*}} into %{{.*}} : tensor<?x3x5xf32> into tensor<?x3x5xf32>
  tgc.write_out %r into %c : tensor<?x3x5xf32> into tensor<?x3x5xf32>
  return
}

// CHECK-LABEL: func.func @fusion_group
func.func @fusion_group(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  // CHECK: %[[G:.*]] = tgc.fusion_group "elementwise" ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8xf32>) {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<8xf32>):
  // CHECK-NEXT: %[[S:.*]] = tgc.add %[[A]], %[[B]]
  // CHECK-NEXT: tgc.yield %[[S]] : tensor<?x8xf32>
  // CHECK-NEXT: } -> tensor<?x8xf32>
  %0 = tgc.fusion_group "elementwise" ins(%x, %b : tensor<?x8xf32>, tensor<8xf32>) {
  ^bb0(%a: tensor<?x8xf32>, %c: tensor<8xf32>):
    %s = tgc.add %a, %c : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
    tgc.yield %s : tensor<?x8xf32>
  } -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
