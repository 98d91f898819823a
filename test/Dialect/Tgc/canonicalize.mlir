// RUN: tgc-opt %s -canonicalize="test-convergence" -split-input-file | FileCheck %s

// Identities: x * 1, x / 1, x - 0.0, x + (-0.0) fold for floats; x + 0.0
// must not (-0.0 + 0.0 is +0.0); integers fold x + 0.

// CHECK-LABEL: func.func @float_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @float_identities(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = tgc.constant dense<1.0> : tensor<f32>
  %zero = tgc.constant dense<0.0> : tensor<f32>
  %negzero = tgc.constant dense<-0.0> : tensor<f32>
  %0 = tgc.mul %x, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %1 = tgc.div %x, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %2 = tgc.sub %x, %zero : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %3 = tgc.add %x, %negzero : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  // CHECK: %[[ZERO:.*]] = tgc.constant dense<0.000000e+00> : tensor<f32>
  // CHECK: %[[KEPT:.*]] = tgc.add %[[X]], %[[ZERO]]
  %4 = tgc.add %x, %zero : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[KEPT]]
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A float floor or trunc division by 1 still rounds: not folded.
// CHECK-LABEL: func.func @float_rounding_div_by_one
// CHECK: %[[T:.*]] = tgc.div %{{.*}}, %{{.*}} rounding = trunc
// CHECK: %[[F:.*]] = tgc.div %{{.*}}, %{{.*}} rounding = floor
// CHECK: return %[[T]], %[[F]]
func.func @float_rounding_div_by_one(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = tgc.constant dense<1.0> : tensor<f32>
  %0 = tgc.div %x, %one rounding = trunc : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tgc.div %x, %one rounding = floor : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @int_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xi64>)
func.func @int_identities(%x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %zero = tgc.constant dense<0> : tensor<i64>
  %one = tgc.constant dense<1> : tensor<i64>
  %0 = tgc.add %zero, %x : tensor<i64>, tensor<4xi64> -> tensor<4xi64>
  %1 = tgc.mul %x, %one : tensor<4xi64>, tensor<i64> -> tensor<4xi64>
  %2 = tgc.div %x, %one rounding = trunc : tensor<4xi64>, tensor<i64> -> tensor<4xi64>
  // CHECK-NOT: tgc.add
  // CHECK-NOT: tgc.mul
  // CHECK: return %[[X]], %[[X]], %[[X]]
  return %0, %1, %2 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}

// -----

// A broadcast that changes the shape is not an identity.
// CHECK-LABEL: func.func @broadcasting_identity_kept
func.func @broadcasting_identity_kept(%x: tensor<4x1xf32>) -> tensor<4x5xf32> {
  %one = tgc.constant dense<1.0> : tensor<1x5xf32>
  // CHECK: tgc.mul
  %0 = tgc.mul %x, %one : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Constant folding of exact operations on small constants.
// CHECK-LABEL: func.func @constant_fold
func.func @constant_fold() -> (tensor<3xf32>, tensor<3xi1>, tensor<3xi32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xi64>) {
  %a = tgc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = tgc.constant dense<[0.5, 2.0, -1.0]> : tensor<3xf32>
  %s = tgc.constant dense<10.0> : tensor<f32>
  // CHECK-DAG: tgc.constant dense<[1.500000e+00, 4.000000e+00, 2.000000e+00]> : tensor<3xf32>
  %0 = tgc.add %a, %b : tensor<3xf32>
  // CHECK-DAG: tgc.constant dense<[false, true, false]> : tensor<3xi1>
  %1 = tgc.cmp eq, %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
  // Float to int truncates toward zero.
  // CHECK-DAG: tgc.constant dense<[0, 2, -1]> : tensor<3xi32>
  %2 = tgc.convert %b : tensor<3xf32> -> tensor<3xi32>
  // CHECK-DAG: tgc.constant dense<[-1.000000e+00, -2.000000e+00, -3.000000e+00]> : tensor<3xf32>
  %3 = tgc.neg %a : tensor<3xf32>
  // A splat broadcasts into the result shape.
  // CHECK-DAG: tgc.constant dense<1.000000e+02> : tensor<2x3xf32>
  %4 = tgc.maximum %s, %s : tensor<f32>, tensor<f32> -> tensor<f32>
  %5 = tgc.expand %4 : tensor<f32> -> tensor<2x3xf32>
  %6 = tgc.mul %5, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %7 = tgc.div %6, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %8 = tgc.mul %7, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  // Floor division of integers rounds toward -inf.
  %i = tgc.constant dense<[7, -7, 6]> : tensor<3xi64>
  %j = tgc.constant dense<2> : tensor<i64>
  // CHECK-DAG: tgc.constant dense<[3, -4, 3]> : tensor<3xi64>
  %9 = tgc.div %i, %j rounding = floor : tensor<3xi64>, tensor<i64> -> tensor<3xi64>
  // CHECK-NOT: tgc.add
  // CHECK-NOT: tgc.cmp
  // CHECK-NOT: tgc.div
  return %0, %1, %2, %3, %8, %9 : tensor<3xf32>, tensor<3xi1>, tensor<3xi32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xi64>
}

// -----

// Not folded: division by zero, relu(-0.0), transcendental functions.
// CHECK-LABEL: func.func @not_folded
func.func @not_folded() -> (tensor<2xi64>, tensor<f32>, tensor<f32>) {
  %i = tgc.constant dense<[1, 2]> : tensor<2xi64>
  %z = tgc.constant dense<[1, 0]> : tensor<2xi64>
  // CHECK: tgc.div
  %0 = tgc.div %i, %z rounding = trunc : tensor<2xi64>
  %nz = tgc.constant dense<-0.0> : tensor<f32>
  // CHECK: tgc.relu
  %1 = tgc.relu %nz : tensor<f32>
  %c = tgc.constant dense<1.0> : tensor<f32>
  // CHECK: tgc.exp
  %2 = tgc.exp %c : tensor<f32>
  return %0, %1, %2 : tensor<2xi64>, tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @full_to_constant
func.func @full_to_constant() -> tensor<2x2xf16> {
  // CHECK: tgc.constant dense<1.500000e+00> : tensor<2x2xf16>
  %0 = tgc.full 1.5 : f16 : tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

// CHECK-LABEL: func.func @reshape_identity_and_composition
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
func.func @reshape_identity_and_composition(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x2xf32>) {
  %0 = tgc.reshape %x : tensor<?x4xf32> -> tensor<?x4xf32>
  %1 = tgc.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  // CHECK: %[[R:.*]] = tgc.reshape %[[X]] : tensor<?x4xf32> -> tensor<?x2xf32>
  %2 = tgc.reshape %1 : tensor<?xf32> -> tensor<?x2xf32>
  // CHECK: return %[[X]], %[[R]]
  return %0, %2 : tensor<?x4xf32>, tensor<?x2xf32>
}

// -----

// A reshape between equal types with two `?` sizes may still move elements
// (2x3 -> 3x2): not an identity.
// CHECK-LABEL: func.func @reshape_two_dynamic_kept
func.func @reshape_two_dynamic_kept(%x: tensor<?x?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
  // CHECK: tgc.reshape
  %0 = tgc.reshape %x [%a, %b] : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @permute_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @permute_compose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %0 = tgc.permute %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %1 = tgc.permute %x [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %2 = tgc.permute %1 [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  %3 = tgc.permute %1 [2, 1, 0] : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  // CHECK: %[[P:.*]] = tgc.permute %[[X]] [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK: return %[[X]], %[[X]], %[[P]]
  return %0, %2, %3 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @shape_identities
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
func.func @shape_identities(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %0 = tgc.expand %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %1 = tgc.slice %x dim = 1 start = 0 end = 8 step = 1 : tensor<?x8xf32> -> tensor<?x8xf32>
  %2 = tgc.concat %x dim = 0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %u = tgc.unsqueeze %x dim = 1 : tensor<?x8xf32> -> tensor<?x1x8xf32>
  %3 = tgc.squeeze %u dims [1] : tensor<?x1x8xf32> -> tensor<?x8xf32>
  %4 = tgc.convert %x : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK-NOT: tgc.
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
  return %0, %1, %2, %3, %4 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @slice_partial_kept
func.func @slice_partial_kept(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // On a `?` dimension, end = 8 need not be the end.
  // CHECK: tgc.slice
  %0 = tgc.slice %x dim = 0 start = 0 end = 8 step = 1 : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @where_splat
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
func.func @where_splat(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = tgc.constant dense<true> : tensor<4xi1>
  %f = tgc.constant dense<false> : tensor<i1>
  %0 = tgc.where %t, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = tgc.where %f, %x, %y : tensor<i1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  // CHECK: return %[[X]], %[[Y]]
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Conversions fold with PyTorch's rules: to bool is x != 0, from bool is 0/1,
// integer narrowing wraps.
// CHECK-LABEL: func.func @convert_fold
func.func @convert_fold() -> (tensor<3xi1>, tensor<2xf32>, tensor<2xi8>) {
  %f = tgc.constant dense<[0.0, -2.5, 0.1]> : tensor<3xf32>
  // CHECK-DAG: tgc.constant dense<[false, true, true]> : tensor<3xi1>
  %0 = tgc.convert %f : tensor<3xf32> -> tensor<3xi1>
  %b = tgc.constant dense<[true, false]> : tensor<2xi1>
  // CHECK-DAG: tgc.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
  %1 = tgc.convert %b : tensor<2xi1> -> tensor<2xf32>
  %i = tgc.constant dense<[300, -129]> : tensor<2xi64>
  // CHECK-DAG: tgc.constant dense<[44, 127]> : tensor<2xi8>
  %2 = tgc.convert %i : tensor<2xi64> -> tensor<2xi8>
  return %0, %1, %2 : tensor<3xi1>, tensor<2xf32>, tensor<2xi8>
}

// -----

// Integer aranges of static, small length fold (wrapping at the element
// width); unsqueeze keeps a constant's elements. A float arange, one of a
// dynamic size, and one over 1024 elements stay.
// CHECK-LABEL: func.func @iota_fold
func.func @iota_fold(%n: index) -> (tensor<1x4xi64>, tensor<3xi8>, tensor<4xf32>, tensor<?xi64>, tensor<2048xi32>) {
  // CHECK-DAG: tgc.constant dense<{{\[}}[2, 5, 8, 11]]> : tensor<1x4xi64>
  %0 = tgc.iota 2 : i64, 3 : i64 : tensor<4xi64>
  %1 = tgc.unsqueeze %0 dim = 0 : tensor<4xi64> -> tensor<1x4xi64>
  // CHECK-DAG: tgc.constant dense<[126, 127, -128]> : tensor<3xi8>
  %2 = tgc.iota 126 : i8, 1 : i8 : tensor<3xi8>
  // CHECK-DAG: tgc.iota 0.000000e+00 : f32, 1.000000e+00 : f32 : tensor<4xf32>
  %3 = tgc.iota 0.0 : f32, 1.0 : f32 : tensor<4xf32>
  // CHECK-DAG: tgc.iota 0 : i64, 1 : i64 [%{{.*}}] : tensor<?xi64>
  %4 = tgc.iota 0 : i64, 1 : i64 [%n] : tensor<?xi64>
  // CHECK-DAG: tgc.iota 0 : i32, 1 : i32 : tensor<2048xi32>
  %5 = tgc.iota 0 : i32, 1 : i32 : tensor<2048xi32>
  return %1, %2, %3, %4, %5 : tensor<1x4xi64>, tensor<3xi8>, tensor<4xf32>, tensor<?xi64>, tensor<2048xi32>
}

// -----

// amax / amin of a splat over static dimensions (non-empty: the verifier
// rejects an empty one) is the splat; of a non-splat constant, or of a
// dynamic tensor (it may be empty at run time), stays.
// CHECK-LABEL: func.func @extremum_of_splat
func.func @extremum_of_splat(%size: index) -> (tensor<2x1xi32>, tensor<2xf32>, tensor<2xi32>, tensor<2x1xi32>) {
  %s = tgc.constant dense<7> : tensor<2x5xi32>
  // CHECK-DAG: tgc.constant dense<7> : tensor<2x1xi32>
  %0 = tgc.amax %s dims [1] keepdim : tensor<2x5xi32> -> tensor<2x1xi32>
  %n = tgc.constant dense<0x7FC00000> : tensor<2x3xf32>
  // CHECK-DAG: tgc.constant dense<0x7FC00000> : tensor<2xf32>
  %1 = tgc.amin %n dims [1] : tensor<2x3xf32> -> tensor<2xf32>
  %c = tgc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK-DAG: tgc.amax %{{.*}} dims [1] : tensor<2x2xi32> -> tensor<2xi32>
  %2 = tgc.amax %c dims [1] : tensor<2x2xi32> -> tensor<2xi32>
  %seven = tgc.constant dense<7> : tensor<i32>
  %e = tgc.expand %seven [%size] : tensor<i32> -> tensor<2x?xi32>
  // CHECK-DAG: tgc.amax %{{.*}} dims [1] keepdim : tensor<2x?xi32> -> tensor<2x1xi32>
  %3 = tgc.amax %e dims [1] keepdim : tensor<2x?xi32> -> tensor<2x1xi32>
  return %0, %1, %2, %3 : tensor<2x1xi32>, tensor<2xf32>, tensor<2xi32>, tensor<2x1xi32>
}

// -----

// Hugging Face's padding mask without padding, built from aranges: it folds
// to true, so the attention has no mask, and `_safe_softmax`'s guard of
// fully masked rows (amax of the mask > 0, a where) folds away.
// CHECK-LABEL: func.func @arange_mask_folds_away
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x16xf32>, %[[K:.*]]: tensor<2x4x8x16xf32>, %[[V:.*]]: tensor<2x4x8x16xf32>)
// CHECK-NEXT: %[[O:.*]] = tgc.scaled_dot_product_attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f64} :
// CHECK-NEXT: return %[[O]]
func.func @arange_mask_folds_away(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %i = tgc.iota 0 : i64, 1 : i64 : tensor<8xi64>
  %u = tgc.unsqueeze %i dim = 1 : tensor<8xi64> -> tensor<8x1xi64>
  %zero = tgc.constant dense<0> : tensor<i64>
  %ge = tgc.cmp ge, %u, %zero : tensor<8x1xi64>, tensor<i64> -> tensor<8x1xi1>
  %mask = tgc.expand %ge : tensor<8x1xi1> -> tensor<2x1x8x8xi1>
  %o = tgc.scaled_dot_product_attention %q, %k, %v mask(%mask : tensor<2x1x8x8xi1>) {scale = 0.25 : f64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %m32 = tgc.convert %mask : tensor<2x1x8x8xi1> -> tensor<2x1x8x8xi32>
  %any = tgc.amax %m32 dims [3] keepdim : tensor<2x1x8x8xi32> -> tensor<2x1x8x1xi32>
  %z32 = tgc.constant dense<0> : tensor<i32>
  %keep = tgc.cmp gt, %any, %z32 : tensor<2x1x8x1xi32>, tensor<i32> -> tensor<2x1x8x1xi1>
  %fz = tgc.constant dense<0.0> : tensor<f32>
  %r = tgc.where %keep, %o, %fz : tensor<2x1x8x1xi1>, tensor<2x4x8x16xf32>, tensor<f32> -> tensor<2x4x8x16xf32>
  return %r : tensor<2x4x8x16xf32>
}

// -----

// A mask that keeps something out (a causal triangle), one that is false,
// and a float mask of ones stay.
// CHECK-LABEL: func.func @masks_that_stay
// CHECK-COUNT-3: tgc.scaled_dot_product_attention {{.*}} mask(
func.func @masks_that_stay(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) {
  %tri = tgc.constant dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %0 = tgc.scaled_dot_product_attention %q, %k, %k mask(%tri : tensor<3x3xi1>) : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  %no = tgc.constant dense<false> : tensor<3x3xi1>
  %1 = tgc.scaled_dot_product_attention %q, %k, %k mask(%no : tensor<3x3xi1>) : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  %ones = tgc.constant dense<1.0> : tensor<3x3xf32>
  %2 = tgc.scaled_dot_product_attention %q, %k, %k mask(%ones : tensor<3x3xf32>) : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  return %0, %1, %2 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
}

// -----

// A float mask of zeros (either sign: adding it changes no score's value
// that exp sees) is no mask; a query of dynamic sizes keeps its mask.
// CHECK-LABEL: func.func @float_zero_masks
// CHECK-COUNT-2: tgc.scaled_dot_product_attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} {scale
// CHECK: tgc.scaled_dot_product_attention {{.*}} mask(
func.func @float_zero_masks(%q: tensor<1x2x3x4xf32>, %d: tensor<?x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<?x2x3x4xf32>) {
  %z = tgc.constant dense<0.0> : tensor<1x1x3x3xf32>
  %0 = tgc.scaled_dot_product_attention %q, %q, %q mask(%z : tensor<1x1x3x3xf32>) {scale = 0.5 : f64} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  %nz = tgc.constant dense<-0.0> : tensor<3x3xf32>
  %1 = tgc.scaled_dot_product_attention %q, %q, %q mask(%nz : tensor<3x3xf32>) {scale = 0.5 : f64} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  %t = tgc.constant dense<true> : tensor<3x3xi1>
  %2 = tgc.scaled_dot_product_attention %d, %d, %d mask(%t : tensor<3x3xi1>) {scale = 0.5 : f64} : tensor<?x2x3x4xf32>, tensor<?x2x3x4xf32>, tensor<?x2x3x4xf32> -> tensor<?x2x3x4xf32>
  return %0, %1, %2 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<?x2x3x4xf32>
}
