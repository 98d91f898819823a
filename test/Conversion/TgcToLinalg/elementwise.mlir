// RUN: tgc-opt %s -tgc-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Broadcasting against a `?`: the `?` size comes from tensor.dim of the
// operand that has it; the rank-1 operand is read along the trailing dim.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>, %[[Y:.*]]: tensor<?xf32>)
// CHECK: %[[C1:.*]] = arith.constant {{.*}}1 : index
// CHECK: %[[D:.*]] = tensor.dim {{.*}}%[[X]], %[[C1]]
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) {{.*}}: tensor<4x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[TRAIL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<4x?xf32>, tensor<?xf32>) outs(%[[E]] : tensor<4x?xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: linalg.yield %[[S]] : f32
func.func @add_dynamic(%x: tensor<4x?xf32>, %y: tensor<?xf32>) -> tensor<4x?xf32> {
  %r = tgc.add %x, %y : tensor<4x?xf32>, tensor<?xf32> -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// -----

// Only a static 1 stretches: it is read at index 0.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @mul_static_one
// CHECK: %[[E:.*]] = tensor.empty() {{.*}}: tensor<4x8xi64>
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #[[ID]]]
// CHECK: arith.muli
func.func @mul_static_one(%x: tensor<4x1xi64>, %y: tensor<1x8xi64>) -> tensor<4x8xi64> {
  %r = tgc.mul %x, %y : tensor<4x1xi64>, tensor<1x8xi64> -> tensor<4x8xi64>
  return %r : tensor<4x8xi64>
}

// -----

// A rank-0 operand (a Python scalar) broadcasts everywhere.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @sub_scalar
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]], #{{.*}}]
// CHECK: arith.subf
func.func @sub_scalar(%x: tensor<?xf32>, %s: tensor<f32>) -> tensor<?xf32> {
  %r = tgc.sub %x, %s : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// f16 is computed in f32 and rounded once.
// CHECK-LABEL: func.func @exp_f16
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[R:.*]] = math.exp %[[W]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[N]] : f16
func.func @exp_f16(%x: tensor<?xf16>) -> tensor<?xf16> {
  %r = tgc.exp %x : tensor<?xf16>
  return %r : tensor<?xf16>
}

// -----

// CHECK-LABEL: func.func @add_bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @add_bf16(%x: tensor<8xbf16>, %y: tensor<8xbf16>) -> tensor<8xbf16> {
  %r = tgc.add %x, %y : tensor<8xbf16>
  return %r : tensor<8xbf16>
}

// -----

// The math unary ops, one math op each.
// CHECK-LABEL: func.func @math_unary
// CHECK: math.exp2
// CHECK: math.expm1
// CHECK: math.log
// CHECK: math.log2
// CHECK: math.log1p
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.tanh
// CHECK: math.erf
// CHECK: math.floor
// CHECK: math.ceil
// CHECK: math.roundeven
// CHECK: math.absf
// CHECK: arith.negf
func.func @math_unary(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tgc.exp2 %x : tensor<4xf64>
  %1 = tgc.expm1 %0 : tensor<4xf64>
  %2 = tgc.log %1 : tensor<4xf64>
  %3 = tgc.log2 %2 : tensor<4xf64>
  %4 = tgc.log1p %3 : tensor<4xf64>
  %5 = tgc.sqrt %4 : tensor<4xf64>
  %6 = tgc.rsqrt %5 : tensor<4xf64>
  %7 = tgc.sin %6 : tensor<4xf64>
  %8 = tgc.cos %7 : tensor<4xf64>
  %9 = tgc.tanh %8 : tensor<4xf64>
  %10 = tgc.erf %9 : tensor<4xf64>
  %11 = tgc.floor %10 : tensor<4xf64>
  %12 = tgc.ceil %11 : tensor<4xf64>
  %13 = tgc.round %12 : tensor<4xf64>
  %14 = tgc.abs %13 : tensor<4xf64>
  %15 = tgc.neg %14 : tensor<4xf64>
  return %15 : tensor<4xf64>
}

// -----

// sigmoid = 1 / (1 + e^-x); silu = x / (1 + e^-x); reciprocal = 1 / x.
// CHECK-LABEL: func.func @sigmoid_silu_reciprocal
// CHECK: %[[NEG:.*]] = arith.negf %[[X:.*]] : f32
// CHECK: %[[E:.*]] = math.exp %[[NEG]] : f32
// CHECK: %[[D:.*]] = arith.addf %{{.*}}, %[[E]] : f32
// CHECK: arith.divf %{{.*}}, %[[D]] : f32
// CHECK: linalg.generic
// CHECK: %[[NEG2:.*]] = arith.negf %[[X2:.*]] : f32
// CHECK: %[[E2:.*]] = math.exp %[[NEG2]] : f32
// CHECK: %[[D2:.*]] = arith.addf %{{.*}}, %[[E2]] : f32
// CHECK: arith.divf %[[X2]], %[[D2]] : f32
// CHECK: linalg.generic
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
func.func @sigmoid_silu_reciprocal(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.sigmoid %x : tensor<4xf32>
  %1 = tgc.silu %0 : tensor<4xf32>
  %2 = tgc.reciprocal %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// relu is PyTorch's clamp_min: `x < 0 ? 0 : x` (NaN and -0.0 pass through).
// CHECK-LABEL: func.func @relu
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X:.*]], %[[Z]] : f32
// CHECK: arith.select %[[LT]], %[[Z]], %[[X]] : f32
// CHECK: %[[ZI:.*]] = arith.constant 0 : i32
// CHECK: %[[LTI:.*]] = arith.cmpi slt, %[[XI:.*]], %[[ZI]] : i32
// CHECK: arith.select %[[LTI]], %[[ZI]], %[[XI]] : i32
func.func @relu(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = tgc.relu %x : tensor<4xf32>
  %1 = tgc.relu %i : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @logical
// CHECK: arith.xori %{{.*}}, %true : i1
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = tgc.logical_not %a : tensor<4xi1>
  %1 = tgc.logical_and %0, %b : tensor<4xi1>
  %2 = tgc.logical_or %1, %b : tensor<4xi1>
  return %2 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @gelu
// CHECK: arith.constant 0.70710678118654757 : f64
// CHECK: math.erf
// CHECK: linalg.generic
// CHECK: arith.constant 0.79788456080286541 : f64
// CHECK: arith.constant 4.471500e-02 : f64
// CHECK: math.tanh
func.func @gelu(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %0 = tgc.gelu %x : tensor<4xf64>
  %1 = tgc.gelu %x approximate = tanh : tensor<4xf64>
  return %0, %1 : tensor<4xf64>, tensor<4xf64>
}

// -----

// clamp compares as PyTorch does (NaN stays NaN, equal zeros keep x); an
// f16 bound is rounded to f16 first (0.1 -> 0.0999755859375).
// CHECK-LABEL: func.func @clamp
// CHECK: %[[LO:.*]] = arith.constant {{.*}}0.0999755859 : f32
// CHECK: %[[HI:.*]] = arith.constant {{.*}}6.000000e+00 : f32
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[W]], %[[LO]] : f32
// CHECK: %[[R:.*]] = arith.select %[[BELOW]], %[[LO]], %[[W]] : f32
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[R]], %[[HI]] : f32
// CHECK: %[[R2:.*]] = arith.select %[[ABOVE]], %[[HI]], %[[R]] : f32
// CHECK: arith.truncf %[[R2]] : f32 to f16
// CHECK: arith.constant {{.*}}-3 : i8
// CHECK: arith.cmpi slt
func.func @clamp(%x: tensor<4xf16>, %i: tensor<4xi8>) -> (tensor<4xf16>, tensor<4xi8>) {
  %0 = tgc.clamp %x min 0.1 max 6.0 : tensor<4xf16>
  %1 = tgc.clamp %i min -3.0 : tensor<4xi8>
  return %0, %1 : tensor<4xf16>, tensor<4xi8>
}

// -----

// A bound the element type cannot hold is an error in PyTorch: not lowered.
func.func @clamp_overflow(%i: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{failed to legalize operation 'tgc.clamp'}}
  %0 = tgc.clamp %i max 300.0 : tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// maximum / minimum propagate NaN (not maxnumf).
// CHECK-LABEL: func.func @max_min
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.maxsi
// CHECK: arith.minsi
func.func @max_min(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi64>, %j: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>) {
  %0 = tgc.maximum %x, %y : tensor<4xf32>
  %1 = tgc.minimum %x, %y : tensor<4xf32>
  %2 = tgc.maximum %i, %j : tensor<4xi64>
  %3 = tgc.minimum %i, %j : tensor<4xi64>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>
}

// -----

// Integer pow: math.ipowi on non-negative exponents; a negative exponent
// gives 0 except for bases 1 and -1.
// CHECK-LABEL: func.func @pow
// CHECK: math.powf
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[Y:.*]], %{{.*}} : i32
// CHECK: %[[E:.*]] = arith.maxsi %[[Y]], %{{.*}} : i32
// CHECK: %[[P:.*]] = math.ipowi %{{.*}}, %[[E]] : i32
// CHECK: arith.select %[[NEG]], %{{.*}}, %[[P]] : i32
// CHECK: math.atan2
func.func @pow(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %0 = tgc.pow %x, %x : tensor<4xf32>
  %1 = tgc.pow %i, %i : tensor<4xi32>
  %2 = tgc.atan2 %x, %x : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// A constant scalar exponent takes PyTorch's special kernels (2 and 3 as
// products, -2 and -1 as reciprocals, 0.5 as sqrt, -0.5 as rsqrt, 1 as the
// base), seen through the fusion group that holds the constant; any other
// exponent is a powf.
// CHECK-LABEL: func.func @pow_scalar_exponents
// CHECK:      ^bb0(%[[A:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[SQ:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:   %[[CUBE:.*]] = arith.mulf %[[SQ]], %[[A]] : f32
// CHECK-NEXT:   linalg.yield %[[CUBE]]
// CHECK:      arith.mulf
// CHECK-NEXT: linalg.yield
// CHECK:      arith.mulf
// CHECK-NEXT: arith.constant 1.0
// CHECK-NEXT: arith.divf
// CHECK:      arith.divf
// CHECK:      math.sqrt
// CHECK:      math.rsqrt
// CHECK:      ^bb0(%[[B:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:   linalg.yield %[[B]]
// CHECK:      math.powf
// CHECK-NOT:  math.powf
func.func @pow_scalar_exponents(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c3 = tgc.constant dense<3.0> : tensor<f32>
  %c2 = tgc.constant dense<2.0> : tensor<f32>
  %cm2 = tgc.constant dense<-2.0> : tensor<f32>
  %cm1 = tgc.constant dense<-1.0> : tensor<f32>
  %ch = tgc.constant dense<0.5> : tensor<f32>
  %cmh = tgc.constant dense<-0.5> : tensor<f32>
  %c1 = tgc.constant dense<1.0> : tensor<f32>
  %c4 = tgc.constant dense<4.0> : tensor<f32>
  %0 = tgc.fusion_group "elementwise" ins(%x, %c3 : tensor<4xf32>, tensor<f32>) {
  ^bb0(%a: tensor<4xf32>, %e: tensor<f32>):
    %r = tgc.pow %a, %e : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    tgc.yield %r : tensor<4xf32>
  } -> tensor<4xf32>
  %1 = tgc.pow %x, %c2 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %2 = tgc.pow %x, %cm2 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %3 = tgc.pow %x, %cm1 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %4 = tgc.pow %x, %ch : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %5 = tgc.pow %x, %cmh : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %6 = tgc.pow %x, %c1 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %7 = tgc.pow %x, %c4 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer division asserts before the loop that no divisor is zero (unless
// the result is empty), then divides safely: 0 and -1 divide by 1.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[TO_SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @div_floor_int
// CHECK-SAME: (%[[X:.*]]: tensor<?xi64>, %[[Y:.*]]: tensor<?xi64>)
// CHECK: %[[TRUE:.*]] = arith.constant {{.*}}true
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}}ins(%[[TRUE]] : i1)
// CHECK: %[[ALL:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[TO_SCALAR]]], iterator_types = ["reduction"]} ins(%[[Y]] : tensor<?xi64>) outs(%[[INIT]] : tensor<i1>)
// CHECK: arith.cmpi ne
// CHECK: arith.andi
// CHECK: %[[NOZERO:.*]] = tensor.extract %[[ALL]][]
// CHECK: %[[N:.*]] = tensor.dim {{.*}}%[[X]]
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq
// CHECK: %[[OK:.*]] = arith.ori %[[NOZERO]], %[[EMPTY]] {{.*}}: i1
// CHECK: cf.assert %[[OK]], "tgc.div: integer division by zero"
// CHECK: linalg.generic
// CHECK: %[[ISZERO:.*]] = arith.cmpi eq, %[[B:.*]], %{{.*}} : i64
// CHECK: %[[ISM1:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : i64
// CHECK: %[[UNSAFE:.*]] = arith.ori %[[ISZERO]], %[[ISM1]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[UNSAFE]], %{{.*}}, %[[B]] : i64
// CHECK: arith.divsi %{{.*}}, %[[SAFE]] : i64
// CHECK: arith.remsi %{{.*}}, %[[SAFE]] : i64
func.func @div_floor_int(%x: tensor<?xi64>, %y: tensor<?xi64>) -> tensor<?xi64> {
  %r = tgc.div %x, %y rounding = floor : tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

// CHECK-LABEL: func.func @remainder_int
// CHECK: cf.assert %{{.*}}, "tgc.remainder: integer division by zero"
// CHECK: arith.remsi
// CHECK: arith.addi
// CHECK: arith.xori
func.func @remainder_int(%x: tensor<4xi32>, %y: tensor<i32>) -> tensor<4xi32> {
  %r = tgc.remainder %x, %y : tensor<4xi32>, tensor<i32> -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// Float division asserts nothing. floor follows Python (1 // 0.1 == 9):
// through fmod, not floor(x / y).
// CHECK-LABEL: func.func @div_float
// CHECK-NOT: cf.assert
// CHECK: arith.divf
// CHECK: linalg.generic
// CHECK: %[[Q:.*]] = arith.divf
// CHECK: math.trunc %[[Q]]
// CHECK: linalg.generic
// CHECK: arith.remf
// CHECK: math.floor
// CHECK-NOT: math.copysign
// CHECK: linalg.generic
// CHECK: arith.remf
func.func @div_float(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tgc.div %x, %y : tensor<4xf32>
  %1 = tgc.div %x, %y rounding = trunc : tensor<4xf32>
  %2 = tgc.div %x, %y rounding = floor : tensor<4xf32>
  %3 = tgc.remainder %x, %y : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Ordered float predicates except ne; bools compare unsigned.
// CHECK-LABEL: func.func @cmp
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf une
// CHECK: arith.cmpf oge
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi ult
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.cmpf oeq
func.func @cmp(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %i: tensor<4xi64>, %b: tensor<4xi1>, %h: tensor<4xf16>) -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = tgc.cmp lt, %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %1 = tgc.cmp ne, %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %2 = tgc.cmp ge, %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %3 = tgc.cmp le, %i, %i : tensor<4xi64>, tensor<4xi64> -> tensor<4xi1>
  %4 = tgc.cmp lt, %b, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  %5 = tgc.cmp eq, %h, %h : tensor<4xf16>, tensor<4xf16> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// where: the scalars are selected as they are (no f32 round trip for f16).
// CHECK-DAG: #[[COND:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[COND]], #[[TRAIL]], #[[SCALAR]], #[[COND]]]
// CHECK: ^bb0(%[[C:.*]]: i1, %[[T:.*]]: f16, %[[F:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[S:.*]] = arith.select %[[C]], %[[T]], %[[F]] : f16
// CHECK-NEXT: linalg.yield %[[S]] : f16
func.func @where(%c: tensor<4x?xi1>, %x: tensor<?xf16>, %y: tensor<f16>) -> tensor<4x?xf16> {
  %r = tgc.where %c, %x, %y : tensor<4x?xi1>, tensor<?xf16>, tensor<f16> -> tensor<4x?xf16>
  return %r : tensor<4x?xf16>
}

// -----

// convert follows convertScalar: to i1 is x != 0 (unordered), int to float
// is signed.
// CHECK-LABEL: func.func @convert
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.cmpf une
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.extui %{{.*}} : i1 to i64
func.func @convert(%x: tensor<?xf32>, %i: tensor<?xi64>, %b: tensor<?xi1>) -> (tensor<?xf16>, tensor<?xi1>, tensor<?xf32>, tensor<?xi32>, tensor<?xi64>) {
  %0 = tgc.convert %x : tensor<?xf32> -> tensor<?xf16>
  %1 = tgc.convert %x : tensor<?xf32> -> tensor<?xi1>
  %2 = tgc.convert %i : tensor<?xi64> -> tensor<?xf32>
  %3 = tgc.convert %x : tensor<?xf32> -> tensor<?xi32>
  %4 = tgc.convert %b : tensor<?xi1> -> tensor<?xi64>
  return %0, %1, %2, %3, %4 : tensor<?xf16>, tensor<?xi1>, tensor<?xf32>, tensor<?xi32>, tensor<?xi64>
}
