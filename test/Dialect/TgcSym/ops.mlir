// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// CHECK-LABEL: func.func @symbol
func.func @symbol(%x: tensor<4x?xf32>) {
  // CHECK: %s0 = tgc_sym.symbol "s0" range [2, inf] hint 7 from arg 0 dim 1
  %s0 = tgc_sym.symbol "s0" range [2, inf] hint 7 from arg 0 dim 1
  // CHECK: %n = tgc_sym.symbol "n" range [0, 1024]{{$}}
  %n = tgc_sym.symbol "n" range [0, 1024]
  // CHECK: %_k2 = tgc_sym.symbol "_k2" range [3, 3] hint 3{{$}}
  %k = tgc_sym.symbol "_k2" range [3, 3] hint 3
  // CHECK: %s1 = tgc_sym.symbol "s1" range [0, inf] from arg 0 dim 0
  %s1 = tgc_sym.symbol "s1" range [0, inf] from arg 0 dim 0
  return
}

// Symbol names are per function: @symbol's names may be reused.
// CHECK-LABEL: func.func @symbol_names_per_function
func.func @symbol_names_per_function() {
  // CHECK: %s0 = tgc_sym.symbol "s0" range [2, inf]
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  return
}

// CHECK-LABEL: func.func @min_max
func.func @min_max() {
  // CHECK: %[[S0:.*]] = tgc_sym.symbol "s0"
  // CHECK: %[[S1:.*]] = tgc_sym.symbol "s1"
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  %s1 = tgc_sym.symbol "s1" range [2, inf]
  // CHECK: %m = tgc_sym.min "m" [%[[S0]], %[[S1]] + 2]
  %m = tgc_sym.min "m" [%s0, %s1 + 2]
  // CHECK: %{{.*}} = tgc_sym.min [%[[S0]], 64]
  %0 = tgc_sym.min [%s0, 64]
  // CHECK: %b = tgc_sym.max "b" [%[[S0]], %[[S1]]]
  %b = tgc_sym.max "b" [%s0, %s1]
  // CHECK: %{{.*}} = tgc_sym.max [%[[S0]], %[[S0]] * 2, %m]
  %1 = tgc_sym.max [%s0, %s0 * 2, %m]
  return
}

// CHECK-LABEL: func.func @bind
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[Y:.*]]: tensor<?x?xf32>, %[[Z:.*]]: tensor<f32>)
func.func @bind(%x: tensor<?x3xf32>, %y: tensor<?x?xf32>, %z: tensor<f32>) {
  // CHECK: %[[S0:.*]] = tgc_sym.symbol "s0"
  // CHECK: %[[S1:.*]] = tgc_sym.symbol "s1"
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  %s1 = tgc_sym.symbol "s1" range [2, inf] from arg 1 dim 1
  // CHECK: tgc_sym.bind %[[X]] [%[[S0]] * 2, 3] : tensor<?x3xf32>
  tgc_sym.bind %x [%s0 * 2, 3] : tensor<?x3xf32>
  // A repeated operand is one map symbol.
  // CHECK: tgc_sym.bind %[[Y]] [%[[S0]], %[[S0]] floordiv 2] : tensor<?x?xf32>
  tgc_sym.bind %y [%s0, %s0 floordiv 2] : tensor<?x?xf32>
  // CHECK: tgc_sym.bind %[[Y]] [%[[S1]] - %[[S0]], -%[[S0]] + 20] : tensor<?x?xf32>
  tgc_sym.bind %y [%s1 - %s0, -%s0 + 20] : tensor<?x?xf32>
  // Constants only: no size operands.
  // CHECK: tgc_sym.bind %[[Y]] [10, 4] : tensor<?x?xf32>
  tgc_sym.bind %y [10, 4] : tensor<?x?xf32>
  // CHECK: tgc_sym.bind %[[Z]] [] : tensor<f32>
  tgc_sym.bind %z [] : tensor<f32>
  // CHECK: tgc_sym.bind %[[Y]] [%[[S0]] mod 3, %[[S1]] ceildiv 4] : tensor<?x?xf32>
  tgc_sym.bind %y [%s0 mod 3, %s1 ceildiv 4] : tensor<?x?xf32>
  return
}

// CHECK-LABEL: func.func @constrain
func.func @constrain() {
  // CHECK: %[[S0:.*]] = tgc_sym.symbol "s0"
  // CHECK: %[[S1:.*]] = tgc_sym.symbol "s1"
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  %s1 = tgc_sym.symbol "s1" range [2, inf]
  // CHECK: tgc_sym.constrain ge [%[[S0]], 10] reason "tgc.topk needs k <= size of dim 0"
  tgc_sym.constrain ge [%s0, 10] reason "tgc.topk needs k <= size of dim 0"
  // CHECK: tgc_sym.constrain le [%[[S0]], %[[S1]] + 1] reason "le"
  tgc_sym.constrain le [%s0, %s1 + 1] reason "le"
  // CHECK: tgc_sym.constrain eq [%[[S1]], %[[S0]] * 2] reason "eq"
  tgc_sym.constrain eq [%s1, %s0 * 2] reason "eq"
  // CHECK: tgc_sym.constrain divisible [%[[S0]] * 3, 4] reason "tgc.reshape to ?x4"
  tgc_sym.constrain divisible [%s0 * 3, 4] reason "tgc.reshape to ?x4"
  // CHECK: tgc_sym.constrain broadcastable [%[[S0]], %[[S1]]] reason "tgc.add"
  tgc_sym.constrain broadcastable [%s0, %s1] reason "tgc.add"
  // True constants are allowed (passes may leave them behind).
  // CHECK: tgc_sym.constrain broadcastable [1, 5] reason "constant"
  tgc_sym.constrain broadcastable [1, 5] reason "constant"
  return
}

// Products and quotients of sizes (semi-affine in the map's symbols).
// CHECK-LABEL: func.func @semi_affine
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[F:.*]]: tensor<?xf32>)
func.func @semi_affine(%x: tensor<?x?xf32>, %flat: tensor<?xf32>) {
  // CHECK: %[[S0:.*]] = tgc_sym.symbol "s0"
  // CHECK: %[[S1:.*]] = tgc_sym.symbol "s1"
  // CHECK: %[[A:.*]] = tgc_sym.symbol "a"
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  %s1 = tgc_sym.symbol "s1" range [2, inf] from arg 0 dim 1
  %a = tgc_sym.symbol "a" range [0, inf]
  // Flattening a [s0, s1] tensor.
  // CHECK: tgc_sym.bind %[[F]] [%[[S0]] * %[[S1]]] : tensor<?xf32>
  tgc_sym.bind %flat [%s0 * %s1] : tensor<?xf32>
  // CHECK: tgc_sym.bind %[[X]] [%[[S0]] floordiv %[[S1]] + 1, %[[S0]] ceildiv %[[S1]]] : tensor<?x?xf32>
  tgc_sym.bind %x [%s0 floordiv %s1 + 1, %s0 ceildiv %s1] : tensor<?x?xf32>
  // CHECK: tgc_sym.bind %[[X]] [%[[A]] mod 4, -%[[A]] + 3] : tensor<?x?xf32>
  tgc_sym.bind %x [%a mod 4, -%a + 3] : tensor<?x?xf32>
  // CHECK: tgc_sym.bind %[[X]] [%[[S0]] * %[[S1]] mod %[[A]], %[[S0]] mod (%[[S1]] * %[[A]])] : tensor<?x?xf32>
  tgc_sym.bind %x [%s0 * %s1 mod %a, %s0 mod (%s1 * %a)] : tensor<?x?xf32>
  // Nested parentheses: only the ones the grammar needs are printed.
  // CHECK: tgc_sym.bind %[[X]] [(%[[S0]] + 1) * (%[[S1]] - 2), %[[S0]]] : tensor<?x?xf32>
  tgc_sym.bind %x [((%s0 + 1) * ((%s1 - 2))), ((%s0))] : tensor<?x?xf32>
  // CHECK: tgc_sym.bind %[[X]] [%[[S0]] * (%[[S1]] floordiv (%[[A]] + 2)), -(%[[S0]] * %[[S1]])] : tensor<?x?xf32>
  tgc_sym.bind %x [%s0 * (%s1 floordiv (%a + 2)), -(%s0 * %s1)] : tensor<?x?xf32>
  // Left-associative, `*`-like operators before `+`/`-`.
  // CHECK: tgc_sym.bind %[[X]] [%[[S0]] floordiv 2 * 3, %[[S1]] - %[[S0]] floordiv 2 * 3] : tensor<?x?xf32>
  tgc_sym.bind %x [%s0 floordiv 2 * 3, %s1 - %s0 floordiv 2 * 3] : tensor<?x?xf32>
  // Negative literals, unary and binary minus.
  // CHECK: tgc_sym.bind %[[X]] [%[[S0]] * 2 - 4, %[[S1]] - %[[S0]] * 3] : tensor<?x?xf32>
  tgc_sym.bind %x [-4 + %s0 * 2, %s1 - -(-%s0) * 3] : tensor<?x?xf32>
  // Repeated operands are one symbol; sums simplify.
  // CHECK: tgc_sym.bind %[[X]] [%[[S1]] * %[[S1]], %[[S1]] * 2] : tensor<?x?xf32>
  tgc_sym.bind %x [%s1 * %s1, %s1 + %s1] : tensor<?x?xf32>
  // An operand that simplification removes is dropped.
  // CHECK: tgc_sym.bind %[[X]] [%[[S1]], 7] : tensor<?x?xf32>
  tgc_sym.bind %x [%a - %a + %s1, %s0 * 0 + 7] : tensor<?x?xf32>
  // CHECK: tgc_sym.constrain eq [%[[S0]] * %[[S1]], %[[A]] * 4] reason "tgc.reshape to ?x4"
  tgc_sym.constrain eq [%s0 * %s1, %a * 4] reason "tgc.reshape to ?x4"
  // CHECK: tgc_sym.constrain divisible [%[[S0]] * %[[S1]], %[[S1]]] reason "r"
  tgc_sym.constrain divisible [%s0 * %s1, %s1] reason "r"
  // CHECK: %{{.*}} = tgc_sym.min [%[[S0]] * %[[S1]], 4096]
  %0 = tgc_sym.min [%s0 * %s1, 4096]
  // CHECK: %p = tgc_sym.max "p" [%[[S0]] ceildiv %[[A]] * %[[A]], %[[S0]]]
  %p = tgc_sym.max "p" [%s0 ceildiv %a * %a, %s0]
  return
}
