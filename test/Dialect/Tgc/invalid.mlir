// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the tgc dialect.

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

func.func @constant_type_mismatch() {
  // expected-error @+1 {{all of {value, result} have same type}}
  %0 = "tgc.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @full_value_type(%n: index) {
  // expected-error @+1 {{value has type 'i64' but the result element type is 'f32'}}
  %0 = tgc.full 1 : i64 : tensor<4xf32>
  return
}

// -----

func.func @full_not_scalar() {
  // expected-error @+1 {{value must be an integer or float attribute}}
  %0 = tgc.full dense<1.0> : tensor<f32> : tensor<4xf32>
  return
}

// -----

func.func @full_sizes(%n: index) {
  // expected-error @+1 {{expected 2 size operands for the `?` sizes of 'tensor<?x?xf32>', got 1}}
  %0 = tgc.full 0.0 : f32 [%n] : tensor<?x?xf32>
  return
}

// -----

func.func @iota_rank() {
  // expected-error @+1 {{result must be rank 1}}
  %0 = tgc.iota 0 : i64, 1 : i64 : tensor<2x4xi64>
  return
}

// -----

func.func @iota_type() {
  // expected-error @+1 {{step has type 'i32' but the result element type is 'i64'}}
  %0 = tgc.iota 0 : i64, 1 : i32 : tensor<4xi64>
  return
}

// -----

func.func @iota_zero_step() {
  // expected-error @+1 {{step must be non-zero}}
  %0 = tgc.iota 0.0 : f32, 0.0 : f32 : tensor<4xf32>
  return
}

// -----

func.func @iota_missing_size() {
  // expected-error @+1 {{a `?` length needs a size operand}}
  %0 = tgc.iota 0 : i64, 1 : i64 : tensor<?xi64>
  return
}

// -----

func.func @iota_extra_size(%n: index) {
  // expected-error @+1 {{a static length takes no size operand}}
  %0 = tgc.iota 0 : i64, 1 : i64 [%n] : tensor<4xi64>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

func.func @float_op_on_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = tgc.exp %x : tensor<4xi64>
  return
}

// -----

func.func @unary_type_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tgc.neg"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @unsupported_element(%x: tensor<4xi16>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of numeric (non-bool) values}}
  %0 = tgc.abs %x : tensor<4xi16>
  return
}

// -----

func.func @clamp_no_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{needs at least one of `min` and `max`}}
  %0 = tgc.clamp %x : tensor<4xf32>
  return
}

// -----

func.func @clamp_order(%x: tensor<4xf32>) {
  // expected-error @+1 {{min (3.000000e+00) is greater than max (1.000000e+00)}}
  %0 = tgc.clamp %x min 3.0 max 1.0 : tensor<4xf32>
  return
}

// -----

func.func @clamp_int_fraction(%x: tensor<4xi32>) {
  // expected-error @+1 {{bounds of an integer clamp must be integral, got 5.000000e-01}}
  %0 = tgc.clamp %x min 0.5 : tensor<4xi32>
  return
}

// -----

func.func @broadcast_mismatch(%x: tensor<3x4xf32>, %y: tensor<5x4xf32>) {
  // expected-error @+1 {{shapes [3, 4] and [5, 4] are not broadcast-compatible: size 3 vs 5 at dimension 0 of the result}}
  %0 = tgc.add %x, %y : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<5x4xf32>
  return
}

// -----

func.func @binary_dtype_mismatch(%x: tensor<4xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of floating-point values}}
  %0 = tgc.atan2 %x, %y : tensor<4xf32>, tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @binary_element_mismatch(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{operand element types differ ('f32' vs 'f16'): type promotion is explicit, insert tgc.convert}}
  %0 = tgc.mul %x, %y : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @binary_result_mismatch(%x: tensor<4x1xf32>, %y: tensor<1x5xf32>) {
  // expected-error @+1 {{inferred type(s) 'tensor<4x5xf32>' are incompatible with return type(s) of operation 'tensor<4x6xf32>'}}
  %0 = tgc.sub %x, %y : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @true_div_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{true division needs floating-point operands}}
  %0 = tgc.div %x, %x : tensor<4xi64>
  return
}

// -----

func.func @cmp_element_mismatch(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{operand element types differ}}
  %0 = tgc.cmp eq, %x, %y : tensor<4xf32>, tensor<4xi32> -> tensor<4xi1>
  return
}

// -----

func.func @where_element_mismatch(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{true and false values have different element types ('f32' vs 'f16'): insert tgc.convert}}
  %0 = tgc.where %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @where_broadcast(%c: tensor<3xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{not broadcast-compatible}}
  %0 = tgc.where %c, %x, %x : tensor<3xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @convert_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{changes the rank}}
  %0 = tgc.convert %x : tensor<4xf32> -> tensor<4x1xf16>
  return
}

// -----

func.func @convert_size(%x: tensor<4x?xf32>) {
  // expected-error @+1 {{changes the size of dimension 0}}
  %0 = tgc.convert %x : tensor<4x?xf32> -> tensor<5x?xf16>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @reduce_dim_range(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{reduction dimension 2 is out of range for rank 2}}
  %0 = tgc.sum %x dims [2] : tensor<4x5xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_negative_dim(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{reduction dimension -1 is out of range for rank 2 (negative dims are normalized by the importer)}}
  %0 = tgc.amax %x dims [-1] : tensor<4x5xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_dim_twice(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{reduction dimension 1 is listed twice}}
  %0 = tgc.sum %x dims [1, 1] : tensor<4x5xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_no_dims(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{expected at least one reduction dimension}}
  %0 = tgc.sum %x dims [] : tensor<4x5xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{inferred type(s) 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  %0 = tgc.mean %x dims [1] keepdim : tensor<4x5xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mean_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = tgc.mean %x dims [0] : tensor<4xi32> -> tensor<i32>
  return
}

// -----

func.func @argmax_dim(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{reduction dimension 3 is out of range for rank 2}}
  %0 = tgc.argmax %x dim 3 : tensor<4x5xf32> -> tensor<4xi64>
  return
}

// -----

func.func @max_dim(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{reduction dimension 2 is out of range for rank 2}}
  %0:2 = tgc.max %x dim 2 : tensor<4x5xf32> -> tensor<4xf32>, tensor<4xi64>
  return
}

// -----

// Reductions without an identity over a dimension of size 0 (PyTorch:
// "Expected reduction dim 0 to have non-zero size").

func.func @amax_empty_dim(%x: tensor<0x4xf32>) {
  // expected-error @+1 {{cannot reduce dimension 0 of size 0 of 'tensor<0x4xf32>': the reduction has no identity}}
  %0 = tgc.amax %x dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @amin_empty_dim(%x: tensor<2x0x3xf32>) {
  // expected-error @+1 {{cannot reduce dimension 1 of size 0}}
  %0 = tgc.amin %x dims [1] keepdim : tensor<2x0x3xf32> -> tensor<2x1x3xf32>
  return
}

// -----

func.func @argmax_empty_dim(%x: tensor<0x4xf32>) {
  // expected-error @+1 {{cannot reduce dimension 0 of size 0}}
  %0 = tgc.argmax %x dim 0 : tensor<0x4xf32> -> tensor<4xi64>
  return
}

// -----

func.func @argmin_empty_dim(%x: tensor<4x0xi32>) {
  // expected-error @+1 {{cannot reduce dimension 1 of size 0}}
  %0 = tgc.argmin %x dim 1 : tensor<4x0xi32> -> tensor<4xi64>
  return
}

// -----

func.func @max_empty_dim(%x: tensor<0xf32>) {
  // expected-error @+1 {{cannot reduce dimension 0 of size 0}}
  %0:2 = tgc.max %x dim 0 : tensor<0xf32> -> tensor<f32>, tensor<i64>
  return
}

// -----

func.func @min_empty_dim(%x: tensor<0x0xf32>) {
  // expected-error @+1 {{cannot reduce dimension 0 of size 0}}
  %0:2 = tgc.min %x dim 0 : tensor<0x0xf32> -> tensor<0xf32>, tensor<0xi64>
  return
}

// -----

func.func @norm_inf_empty_dim(%x: tensor<0x4xf32>) {
  // expected-error @+1 {{cannot reduce dimension 0 of size 0 of 'tensor<0x4xf32>': a norm with p = inf has no identity}}
  %0 = tgc.norm %x dims [0] {p = 0x7FF0000000000000 : f64} : tensor<0x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @norm_negative_empty_dim(%x: tensor<0x4xf32>) {
  // expected-error @+1 {{a norm with p = -1.000000 has no identity}}
  %0 = tgc.norm %x dims [0] {p = -1.0 : f64} : tensor<0x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @norm_nan(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{p must be a number, got nan}}
  %0 = tgc.norm %x dims [0] {p = 0x7FF8000000000000 : f64} : tensor<3x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @topk_k_too_large(%x: tensor<8xf32>) {
  // expected-error @+1 {{k (10) is larger than the size (8) of dimension 0}}
  %0:2 = tgc.topk %x k = 10 dim = 0 : tensor<8xf32> -> tensor<10xf32>, tensor<10xi64>
  return
}

// -----

func.func @topk_negative_k(%x: tensor<8xf32>) {
  // expected-error @+1 {{k must be non-negative, got -1}}
  %0:2 = tgc.topk %x k = -1 dim = 0 : tensor<8xf32> -> tensor<8xf32>, tensor<8xi64>
  return
}

// -----

func.func @topk_dim(%x: tensor<8xf32>) {
  // expected-error @+1 {{dim 1 is out of range for rank 1}}
  %0:2 = tgc.topk %x k = 1 dim = 1 : tensor<8xf32> -> tensor<1xf32>, tensor<1xi64>
  return
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

func.func @reshape_count(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{element count mismatch: 'tensor<4x6xf32>' has 24 elements but 'tensor<5x5xf32>' has 25}}
  %0 = tgc.reshape %x : tensor<4x6xf32> -> tensor<5x5xf32>
  return
}

// -----

func.func @reshape_count_inferred(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{element count mismatch: 'tensor<4x6xf32>' has 24 elements, not a multiple of the 5 given by the static sizes of 'tensor<?x5xf32>'}}
  %0 = tgc.reshape %x : tensor<4x6xf32> -> tensor<?x5xf32>
  return
}

// -----

func.func @reshape_sizes(%x: tensor<?xf32>, %n: index) {
  // expected-error @+1 {{expected 3 size operands for the `?` sizes of 'tensor<?x?x?xf32>', got 1}}
  %0 = tgc.reshape %x [%n] : tensor<?xf32> -> tensor<?x?x?xf32>
  return
}

// -----

func.func @reshape_element(%x: tensor<4xf32>) {
  // expected-error @+1 {{changes the element type ('f32' -> 'f16'): use tgc.convert}}
  %0 = tgc.reshape %x : tensor<4xf32> -> tensor<2x2xf16>
  return
}

// -----

func.func @permute_not_permutation(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{[0, 0] is not a permutation of 0..1}}
  %0 = tgc.permute %x [0, 0] : tensor<4x5xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @permute_rank(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{permutation has 3 entries for an input of rank 2}}
  %0 = tgc.permute %x [0, 1, 2] : tensor<4x5xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @expand_element(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{changes the element type}}
  %0 = tgc.expand %x : tensor<1x4xf32> -> tensor<3x4xf16>
  return
}

// -----

func.func @expand_rank(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{cannot expand rank 2 to the lower rank 1}}
  %0 = tgc.expand %x : tensor<1x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @expand_non_one(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{cannot expand dimension 0 of size 2 to 6 (only size-1 dimensions stretch)}}
  %0 = tgc.expand %x : tensor<2x4xf32> -> tensor<6x4xf32>
  return
}

// -----

func.func @expand_sizes(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{expected 1 size operands (one per `?` result size not aligned with a `?` input size), got 0}}
  %0 = tgc.expand %x : tensor<1x4xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<8xf32>) {
  // expected-error @+1 {{step must be >= 1, got 0}}
  %0 = tgc.slice %x dim = 0 start = 0 end = 4 step = 0 : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_dim(%x: tensor<8xf32>) {
  // expected-error @+1 {{dim 1 is out of range for rank 1}}
  %0 = tgc.slice %x dim = 1 start = 0 end = 4 step = 1 : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<8xf32>) {
  // expected-error @+1 {{inferred type(s) 'tensor<3xf32>' are incompatible}}
  %0 = tgc.slice %x dim = 0 start = -3 end = 9223372036854775807 step = 1 : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+1 {{needs at least one input}}
  %0 = tgc.concat dim = 0 : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_element(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{input 1 has element type 'f16' but input 0 has 'f32'}}
  %0 = tgc.concat %x, %y dim = 0 : (tensor<4xf32>, tensor<4xf16>) -> tensor<8xf32>
  return
}

// -----

func.func @concat_rank(%x: tensor<4xf32>, %y: tensor<4x1xf32>) {
  // expected-error @+1 {{input 1 has rank 2 but input 0 has rank 1}}
  %0 = tgc.concat %x, %y dim = 0 : (tensor<4xf32>, tensor<4x1xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @concat_size(%x: tensor<4x3xf32>, %y: tensor<4x5xf32>) {
  // expected-error @+1 {{input 1 has size 5 in dimension 1 where input 0 has 3}}
  %0 = tgc.concat %x, %y dim = 0 : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<8x3xf32>
  return
}

// -----

func.func @concat_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{dim 1 is out of range for rank 1}}
  %0 = tgc.concat %x dim = 1 : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @squeeze_non_one(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{dimension 0 has size ?: only dimensions of static size 1 can be squeezed}}
  %0 = tgc.squeeze %x dims [0] : tensor<?x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @squeeze_twice(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{dim 0 is listed twice}}
  %0 = tgc.squeeze %x dims [0, 0] : tensor<1x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @squeeze_dim(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = tgc.squeeze %x dims [2] : tensor<1x4xf32> -> tensor<1x4xf32>
  return
}

// -----

func.func @unsqueeze_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 1 (expected 0 <= dim < 2}}
  %0 = tgc.unsqueeze %x dim = 2 : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{low and high must list one amount per dimension (rank 2), got 1 and 2}}
  %0 = tgc.pad %x low [0] high [0, 1] value 0.0 : f32 : tensor<4x5xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{padding of dimension 1 is negative: negative padding is a slice, use tgc.slice}}
  %0 = tgc.pad %x low [0, -1] high [0, 0] value 0.0 : f32 : tensor<4x5xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{padding value must be a scalar of the element type 'f32'}}
  %0 = tgc.pad %x low [0, 0] high [0, 1] value 0 : i32 : tensor<4x5xf32> -> tensor<4x6xf32>
  return
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

func.func @philox_sizes(%seed: tensor<i64>, %n: index) {
  // expected-error @+1 {{expected 1 size operands for the `?` sizes of 'tensor<?x64xf32>', got 0}}
  %0 = tgc.philox_uniform %seed stream = 0 : tensor<i64> -> tensor<?x64xf32>
  return
}

// -----

func.func @philox_seed(%seed: tensor<1xi64>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 64-bit signless integer values}}
  %0 = tgc.philox_uniform %seed stream = 0 : tensor<1xi64> -> tensor<4xf32>
  return
}

// -----

func.func @philox_integer(%seed: tensor<i64>) {
  // expected-error @+1 {{result #0 must be ranked tensor of floating-point values}}
  %0 = tgc.philox_uniform %seed stream = 0 : tensor<i64> -> tensor<4xi32>
  return
}

// -----

func.func @scatter_add_rank0(%b: tensor<f32>, %i: tensor<i64>, %s: tensor<f32>) {
  // expected-error @+1 {{base must have rank >= 1}}
  %0 = tgc.scatter_add %b, %i, %s dim = 0 : tensor<f32>, tensor<i64>, tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @scatter_add_dim(%b: tensor<4x8xf32>, %i: tensor<4x2xi64>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = tgc.scatter_add %b, %i, %s dim = 2 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_add_element(%b: tensor<4x8xf32>, %i: tensor<4x2xi64>, %s: tensor<4x2xf64>) {
  // expected-error @+1 {{src's element type 'f64' differs from base's 'f32'}}
  %0 = tgc.scatter_add %b, %i, %s dim = 1 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf64> -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_add_src_rank(%b: tensor<4x8xf32>, %i: tensor<4x2xi64>, %s: tensor<8xf32>) {
  // expected-error @+1 {{src's rank (1) differs from base's (2)}}
  %0 = tgc.scatter_add %b, %i, %s dim = 1 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_add_index_rank(%b: tensor<4x8x2xf32>, %i: tensor<4x2xi64>, %s: tensor<4x2x2xf32>) {
  // expected-error @+1 {{index rank (2) must be 1 or base's rank (3)}}
  %0 = tgc.scatter_add %b, %i, %s dim = 1 : tensor<4x8x2xf32>, tensor<4x2xi64>, tensor<4x2x2xf32> -> tensor<4x8x2xf32>
  return
}

// -----

func.func @scatter_add_index_exceeds_src(%b: tensor<4x8xf32>, %i: tensor<4x3xi64>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{index size 3 in dimension 1 exceeds src's size 2}}
  %0 = tgc.scatter_add %b, %i, %s dim = 1 : tensor<4x8xf32>, tensor<4x3xi64>, tensor<4x2xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_add_index_exceeds_base(%b: tensor<4x8xf32>, %i: tensor<5x2xi64>, %s: tensor<5x2xf32>) {
  // expected-error @+1 {{index size 5 in dimension 0 exceeds base's size 4}}
  %0 = tgc.scatter_add %b, %i, %s dim = 1 : tensor<4x8xf32>, tensor<5x2xi64>, tensor<5x2xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @scatter_add_slice_length(%b: tensor<10x8xf32>, %i: tensor<3xi64>, %s: tensor<4x8xf32>) {
  // expected-error @+1 {{src's size 4 along dim 0 differs from the index's length 3}}
  %0 = tgc.scatter_add %b, %i, %s dim = 0 : tensor<10x8xf32>, tensor<3xi64>, tensor<4x8xf32> -> tensor<10x8xf32>
  return
}

// -----

func.func @scatter_add_slice_size(%b: tensor<10x8xf32>, %i: tensor<3xi64>, %s: tensor<3x7xf32>) {
  // expected-error @+1 {{src's size 7 in dimension 1 differs from base's 8}}
  %0 = tgc.scatter_add %b, %i, %s dim = 0 : tensor<10x8xf32>, tensor<3xi64>, tensor<3x7xf32> -> tensor<10x8xf32>
  return
}

// -----

func.func @scatter_add_bool(%b: tensor<4xi1>, %i: tensor<2xi64>, %s: tensor<2xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of numeric (non-bool) values}}
  %0 = tgc.scatter_add %b, %i, %s dim = 0 : tensor<4xi1>, tensor<2xi64>, tensor<2xi1> -> tensor<4xi1>
  return
}

// -----

func.func @gather_rank(%x: tensor<4x8xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{index rank (1) differs from the input rank (2)}}
  %0 = tgc.gather %x, %i dim = 1 : tensor<4x8xf32>, tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @gather_size(%x: tensor<4x8xf32>, %i: tensor<5x2xi64>) {
  // expected-error @+1 {{index size 5 in dimension 0 exceeds the input size 4}}
  %0 = tgc.gather %x, %i dim = 1 : tensor<4x8xf32>, tensor<5x2xi64> -> tensor<5x2xf32>
  return
}

// -----

func.func @gather_dim(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = tgc.gather %x, %i dim = 2 : tensor<4x8xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_index_type(%x: tensor<4x8xf32>, %i: tensor<4x2xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = tgc.gather %x, %i dim = 1 : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @index_select_rank(%x: tensor<4x8xf32>, %i: tensor<2x2xi64>) {
  // expected-error @+1 {{index must have rank 0 or 1, got 2}}
  %0 = tgc.index_select %x, %i dim = 0 : tensor<4x8xf32>, tensor<2x2xi64> -> tensor<2x8xf32>
  return
}

// -----

func.func @index_select_scalar_input(%x: tensor<f32>, %i: tensor<1xi64>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = tgc.index_select %x, %i dim = 0 : tensor<f32>, tensor<1xi64> -> tensor<1xf32>
  return
}

// -----

func.func @index_select_dim(%x: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{dim 5 is out of range for rank 2}}
  %0 = tgc.index_select %x, %i dim = 5 : tensor<4x8xf32>, tensor<2xi64> -> tensor<2x8xf32>
  return
}

// -----

func.func @embedding_rank(%w: tensor<10xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{weight must have rank 2 ([num, dim])}}
  %0 = tgc.embedding %w, %i : tensor<10xf32>, tensor<3xi64> -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{matmul contraction sizes differ: [2, 3] x [4, 5] contracts 3 with 4}}
  %0 = tgc.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // expected-error @+1 {{matmul batch dimensions: shapes [2] and [3] are not broadcast-compatible}}
  %0 = tgc.matmul %a, %b : tensor<2x2x3xf32>, tensor<3x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{matmul operands must have rank >= 1}}
  %0 = tgc.matmul %a, %b : tensor<f32>, tensor<3xf32> -> tensor<f32>
  return
}

// -----

func.func @matmul_dtype(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{matmul operands have different element types ('f32' vs 'f16'): insert tgc.convert}}
  %0 = tgc.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf16> -> tensor<2x4xf32>
  return
}

// -----

func.func @bmm_rank(%a: tensor<3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+1 {{bmm operands must have rank 3}}
  %0 = tgc.bmm %a, %b : tensor<3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return
}

// -----

func.func @bmm_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{bmm batch sizes differ: 2 vs 3}}
  %0 = tgc.bmm %a, %b : tensor<2x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x5xf32>
  return
}

// -----

func.func @bmm_inner(%a: tensor<?x3x4xf32>, %b: tensor<?x5x6xf32>) {
  // expected-error @+1 {{bmm contraction sizes differ: [?, 3, 4] x [?, 5, 6]}}
  %0 = tgc.bmm %a, %b : tensor<?x3x4xf32>, tensor<?x5x6xf32> -> tensor<?x3x6xf32>
  return
}

// -----

func.func @bmm_dtype(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf64>) {
  // expected-error @+1 {{bmm operands have different element types}}
  %0 = tgc.bmm %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf64> -> tensor<2x3x5xf32>
  return
}

// -----

func.func @linear_features(%x: tensor<8x32xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{linear input has 32 features but the weight expects 64}}
  %0 = tgc.linear %x, %w : tensor<8x32xf32>, tensor<16x64xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<8x32xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{linear weight must have rank 2}}
  %0 = tgc.linear %x, %w : tensor<8x32xf32>, tensor<32xf32> -> tensor<8xf32>
  return
}

// -----

func.func @linear_input_rank(%x: tensor<f32>, %w: tensor<4x1xf32>) {
  // expected-error @+1 {{linear input must have rank >= 1}}
  %0 = tgc.linear %x, %w : tensor<f32>, tensor<4x1xf32> -> tensor<4xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<8x32xf32>, %w: tensor<16x32xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{linear bias must be [16], got 'tensor<8xf32>'}}
  %0 = tgc.linear %x, %w, %b : tensor<8x32xf32>, tensor<16x32xf32>, tensor<8xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @linear_dtype(%x: tensor<8x32xf32>, %w: tensor<16x32xbf16>) {
  // expected-error @+1 {{linear operands have different element types}}
  %0 = tgc.linear %x, %w : tensor<8x32xf32>, tensor<16x32xbf16> -> tensor<8x16xf32>
  return
}

// -----

func.func @cholesky_rank(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects a matrix or a batch of matrices (rank >= 2), got rank 1}}
  %0 = tgc.cholesky %a : tensor<4xf32>
  return
}

// -----

func.func @cholesky_square(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expects square matrices, got 3x4}}
  %0 = tgc.cholesky %a : tensor<2x3x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Neural-network operators
//===----------------------------------------------------------------------===//

func.func @softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = tgc.softmax %x dim = 2 : tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{dim -1 is out of range for rank 2}}
  %0 = tgc.log_softmax %x dim = -1 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{normalized_rank must be in [1, 2] for an input of rank 2, got 3}}
  %0 = tgc.layer_norm %x normalized_rank = 3 eps = 1.0e-05 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<4x8xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{weight must have the normalized shape [8], got [4]}}
  %0 = tgc.layer_norm %x weight(%w : tensor<4xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_bias_dtype(%x: tensor<4x8xf32>, %b: tensor<8xf16>) {
  // expected-error @+1 {{bias has element type 'f16' but the input has 'f32'}}
  %0 = tgc.layer_norm %x bias(%b : tensor<8xf16>) normalized_rank = 1 eps = 1.0e-05 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_eps(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{eps must be non-negative}}
  %0 = tgc.layer_norm %x normalized_rank = 1 eps = -1.0 : tensor<4x8xf32>
  return
}

// -----

func.func @rms_norm_weight(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+1 {{weight must have the normalized shape [8], got [4, 8]}}
  %0 = tgc.rms_norm %x weight(%w : tensor<4x8xf32>) normalized_rank = 1 : tensor<4x8xf32>
  return
}

// -----

func.func @rms_norm_eps(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{eps must be non-negative}}
  %0 = tgc.rms_norm %x normalized_rank = 1 eps = -1.0 : tensor<4x8xf32>
  return
}

// -----

func.func @rms_norm_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{normalized_rank must be in [1, 2] for an input of rank 2, got 0}}
  %0 = tgc.rms_norm %x normalized_rank = 0 : tensor<4x8xf32>
  return
}

// -----

func.func @sdpa_rank(%q: tensor<8xf32>) {
  // expected-error @+1 {{query, key and value must have rank >= 2}}
  %0 = tgc.scaled_dot_product_attention %q, %q, %q : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @sdpa_embedding(%q: tensor<4x8xf32>, %k: tensor<6x16xf32>) {
  // expected-error @+1 {{query and key embedding sizes differ: 8 vs 16}}
  %0 = tgc.scaled_dot_product_attention %q, %k, %k : tensor<4x8xf32>, tensor<6x16xf32>, tensor<6x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @sdpa_sequence(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<5x8xf32>) {
  // expected-error @+1 {{key and value sequence lengths differ: 6 vs 5}}
  %0 = tgc.scaled_dot_product_attention %q, %k, %v : tensor<4x8xf32>, tensor<6x8xf32>, tensor<5x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @sdpa_batch(%q: tensor<2x4x8xf32>, %k: tensor<3x6x8xf32>) {
  // expected-error @+1 {{attention batch dimensions: shapes [2] and [3] are not broadcast-compatible}}
  %0 = tgc.scaled_dot_product_attention %q, %k, %k : tensor<2x4x8xf32>, tensor<3x6x8xf32>, tensor<3x6x8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

func.func @sdpa_dtype(%q: tensor<4x8xf32>, %k: tensor<6x8xf16>) {
  // expected-error @+1 {{attention operands have different element types}}
  %0 = tgc.scaled_dot_product_attention %q, %k, %k : tensor<4x8xf32>, tensor<6x8xf16>, tensor<6x8xf16> -> tensor<4x8xf32>
  return
}

// -----

func.func @sdpa_mask_and_causal(%q: tensor<4x8xf32>, %m: tensor<4x4xi1>) {
  // expected-error @+1 {{causal attention takes no explicit mask (as in PyTorch)}}
  %0 = tgc.scaled_dot_product_attention %q, %q, %q mask(%m : tensor<4x4xi1>) causal : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @sdpa_mask_type(%q: tensor<4x8xf32>, %m: tensor<4x4xi32>) {
  // expected-error @+1 {{mask must be i1 or 'f32', got 'i32'}}
  %0 = tgc.scaled_dot_product_attention %q, %q, %q mask(%m : tensor<4x4xi32>) : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @sdpa_mask_shape(%q: tensor<4x8xf32>, %m: tensor<3x4xi1>) {
  // expected-error @+1 {{mask [3, 4] does not broadcast to the attention scores [4, 4]}}
  %0 = tgc.scaled_dot_product_attention %q, %q, %q mask(%m : tensor<3x4xi1>) : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @conv_rank(%x: tensor<3x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{conv2d input must have rank 4 ([N, C, H, W]) or 3 ([C, H, W]), got rank 2}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<3x32xf32>, tensor<16x3x3x3xf32> -> tensor<16x30xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3xf32>) {
  // expected-error @+1 {{conv2d weight must have rank 4 ([O, C / groups, kH, kW]), got rank 3}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x3x8x8xf32>, tensor<16x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{weight expects 3 input channels per group but the input has 4 channels in 1 groups}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x4x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<16x1x3x3xf32>) {
  // expected-error @+1 {{input channels (4) are not divisible by groups (3)}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 3 : tensor<1x4x8x8xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_out_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{output channels (6) are not divisible by groups (4)}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 4 : tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_zero_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{groups must be >= 1, got 0}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 0 : tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{stride entries must be >= 1, got 0}}
  %0 = tgc.conv2d %x, %w stride [0, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_padding_entries(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{padding must have 2 entries (H, W), got 1}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0] dilation [1, 1] groups = 1 : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{conv2d bias must be [16], got 'tensor<8xf32>'}}
  %0 = tgc.conv2d %x, %w bias(%b : tensor<8xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_dynamic_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x?x3xf32>) {
  // expected-error @+1 {{conv2d kernel sizes must be static}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x3x8x8xf32>, tensor<16x3x?x3xf32> -> tensor<1x16x?x6xf32>
  return
}

// -----

func.func @conv_window_too_large(%x: tensor<1x3x2x2xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{conv2d spatial dimension 0: window of size 3 does not fit the padded input of size 2}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x3x2x2xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x1x1xf32>
  return
}

// -----

func.func @conv_dtype(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf16>) {
  // expected-error @+1 {{conv2d operands have different element types}}
  %0 = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf16> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @max_pool_rank(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{max_pool2d input must have rank 4 ([N, C, H, W]) or 3 ([C, H, W]), got rank 2}}
  %0 = tgc.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<8x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @max_pool_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{kernel entries must be >= 1, got 0}}
  %0 = tgc.max_pool2d %x kernel [0, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @max_pool_padding(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{padding (2) must be at most half the kernel size (2)}}
  %0 = tgc.max_pool2d %x kernel [2, 2] stride [2, 2] padding [2, 0] dilation [1, 1] : tensor<1x3x8x8xf32> -> tensor<1x3x6x4xf32>
  return
}

// -----

func.func @avg_pool_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{avg_pool2d input must have rank 4 ([N, C, H, W]) or 3 ([C, H, W]), got rank 1}}
  %0 = tgc.avg_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @avg_pool_divisor(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{divisor_override must be >= 1, got 0}}
  %0 = tgc.avg_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] {divisor_override = 0 : i64} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @avg_pool_result(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{inferred type(s) 'tensor<1x3x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x3x8x8xf32>'}}
  %0 = tgc.avg_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Out buffers
//===----------------------------------------------------------------------===//

func.func @write_out_not_argument(%x: tensor<4xf32>) {
  %y = tgc.neg %x : tensor<4xf32>
  // expected-error @+1 {{out must be an argument of the enclosing function (the caller's buffer)}}
  tgc.write_out %x into %y : tensor<4xf32> into tensor<4xf32>
  return
}

// -----

func.func @write_out_element(%x: tensor<4xf32>, %o: tensor<4xf16>) {
  // expected-error @+1 {{value element type 'f32' differs from the out buffer's 'f16'}}
  tgc.write_out %x into %o : tensor<4xf32> into tensor<4xf16>
  return
}

// -----

func.func @write_out_rank(%x: tensor<4xf32>, %o: tensor<4x1xf32>) {
  // expected-error @+1 {{value rank 1 differs from the out buffer's rank 2}}
  tgc.write_out %x into %o : tensor<4xf32> into tensor<4x1xf32>
  return
}

// -----

func.func @write_out_size(%x: tensor<?xf32>, %v: tensor<3xf32>, %i: tensor<3xi64>) {
  %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
  // expected-error @+1 {{value size 10 differs from the out buffer's size 3 in dimension 0}}
  tgc.write_out %values into %v : tensor<10xf32> into tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//

// -----

func.func @group_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown kind 'big' (expected elementwise, reduction, rows, matmul, convolution or single)}}
  %0 = tgc.fusion_group "big" ins(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tgc.yield %a : tensor<4xf32>
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @group_args(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has 1 inputs but its block has 2 arguments}}
  %0 = tgc.fusion_group "single" ins(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    tgc.yield %a : tensor<4xf32>
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @group_arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{block argument 0 has type 'tensor<4xf16>' but input 0 has type 'tensor<4xf32>'}}
  %0 = tgc.fusion_group "single" ins(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf16>):
    %c = tgc.convert %a : tensor<4xf16> -> tensor<4xf32>
    tgc.yield %c : tensor<4xf32>
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @group_yield(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{yields 'tensor<4xf32>' but its results are 'tensor<4xf16>'}}
  %0 = tgc.fusion_group "single" ins(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tgc.yield %a : tensor<4xf32>
  } -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @group_isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = tgc.fusion_group "single" ins() {
    // expected-error @+1 {{using value defined outside the region}}
    %n = tgc.neg %x : tensor<4xf32>
    tgc.yield %n : tensor<4xf32>
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conv_backward_input_rank(%dy: tensor<1x16x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{conv2d_backward_input operands must have rank 4, got 3 and 4}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_dtypes(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf64>) {
  // expected-error @+1 {{conv2d_backward_input operands must have one element type, got 'f32' and 'f64'}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf64> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_stride(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{stride entries must be >= 1, got 0}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [0, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_groups(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{output channels (16) are not divisible by groups (3)}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 3 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x9x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_groups_positive(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{groups must be >= 1, got 0}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 0 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_result(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{result must be a rank-4 tensor of 'f32', got 'tensor<1x3x8x8xf64>'}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x3x8x8xf64>
  return
}

// -----

func.func @conv_backward_input_dynamic_image(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{result's spatial sizes must be static (the input's H and W), got 'tensor<1x3x?x8xf32>'}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x3x?x8xf32>
  return
}

// -----

func.func @conv_backward_input_batch(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{result's batch 2 is not the output gradient's 1}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_out_channels(%dy: tensor<1x12x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{weight has 16 output channels but the output gradient 12}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x12x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_channels(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{result's channels 4 are not the weight's 3 times groups (1)}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_kernel(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x?x3xf32>) {
  // expected-error @+1 {{kernel sizes must be static}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x?x3xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_window(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{conv2d_backward_input: the output gradient's size 8 along dim 2 is not the convolution's output size 4}}
  %0 = tgc.conv2d_backward_input %dy, %w stride [2, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_backward_input_fit(%dy: tensor<1x16x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{conv2d_backward_input: }}
  %0 = tgc.conv2d_backward_input %dy, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<16x3x3x3xf32> -> tensor<1x3x1x8xf32>
  return
}

// -----

func.func @conv_backward_weight_batch(%dy: tensor<2x16x8x8xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{conv2d_backward_weight: the input's batch 1 is not the output gradient's 2}}
  %0 = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<2x16x8x8xf32>, tensor<1x3x8x8xf32> -> tensor<16x3x3x3xf32>
  return
}

// -----

func.func @conv_backward_weight_groups(%dy: tensor<1x16x8x8xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{input channels (3) are not divisible by groups (2)}}
  %0 = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups = 2 : tensor<1x16x8x8xf32>, tensor<1x3x8x8xf32> -> tensor<16x1x3x3xf32>
  return
}

// -----

func.func @conv_backward_weight_kernel(%dy: tensor<1x16x8x8xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{kernel entries must be >= 1, got 0}}
  %0 = tgc.conv2d_backward_weight %dy, %x kernel [0, 3] stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<1x3x8x8xf32> -> tensor<16x3x0x3xf32>
  return
}

// -----

func.func @conv_backward_weight_window(%dy: tensor<1x16x8x8xf32>, %x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{conv2d_backward_weight: the output gradient's size 8 along dim 3 is not the convolution's output size 6}}
  %0 = tgc.conv2d_backward_weight %dy, %x kernel [3, 3] stride [1, 1] padding [1, 0] dilation [1, 1] groups = 1 : tensor<1x16x8x8xf32>, tensor<1x3x8x8xf32> -> tensor<16x3x3x3xf32>
  return
}

// -----

func.func @max_pool_window_too_large(%x: tensor<1x1x3x3xf32>) {
  // Without ceil mode PyTorch has no output for it ("Output size is too small").
  // expected-error @+1 {{max_pool2d spatial dimension 0: window of size 4 does not fit the padded input of size 3}}
  %0 = tgc.max_pool2d %x kernel [4, 4] stride [4, 4] padding [0, 0] dilation [1, 1] : tensor<1x1x3x3xf32> -> tensor<1x1x1x1xf32>
  return
}
