// RUN: tgc-opt %s -tgc-symbolize-shapes -tgc-infer-shapes -split-input-file -verify-diagnostics | FileCheck %s
// Re-running the pass recomputes the same result.
// RUN: tgc-opt %s -tgc-symbolize-shapes -tgc-infer-shapes -tgc-infer-shapes -split-input-file -verify-diagnostics | FileCheck %s

// Seed 000: topk over a dynamic size needs `s0 >= 10`, nothing else.
// CHECK-LABEL: func.func @topk_out
// CHECK: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] hint 100 from arg 0 dim 0
// CHECK: %[[V:.*]], %[[I:.*]] = tgc.topk
// CHECK-NEXT: tgc_sym.bind %[[V]] [10] : tensor<10xf32>
// CHECK-NEXT: tgc_sym.bind %[[I]] [10] : tensor<10xi64>
// CHECK-NEXT: tgc_sym.constrain ge [%[[S0]], 10] reason "tgc.topk needs k (10) <= size of dim 0"
// CHECK-NOT: tgc_sym.constrain
// CHECK: return
func.func @topk_out(%x: tensor<?xf32> {tgc.example_shape = array<i64: 100>}, %v: tensor<10xf32>, %i: tensor<10xi64>) {
  %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
  tgc.write_out %values into %v : tensor<10xf32> into tensor<10xf32>
  tgc.write_out %indices into %i : tensor<10xi64> into tensor<10xi64>
  return
}

// -----

// bmm forces the batch sizes equal, and so does the out buffer: the
// constraints are exactly those relations (no size is pinned to 5), and
// the result uses one symbol.
// CHECK-LABEL: func.func @bmm_out
// CHECK-DAG: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] hint 5 from arg 0 dim 0
// CHECK-DAG: %[[S1:.*]] = tgc_sym.symbol "s1" range [2, inf] hint 6 from arg 1 dim 0
// CHECK-DAG: %[[S2:.*]] = tgc_sym.symbol "s2" range [2, inf] hint 7 from arg 2 dim 0
// CHECK: %[[R:.*]] = tgc.bmm
// CHECK-NEXT: tgc_sym.bind %[[R]] [%[[S0]], 3, 5]
// CHECK-NEXT: tgc_sym.constrain eq [%[[S1]], %[[S0]]] reason "tgc.bmm batch sizes must be equal"
// CHECK: tgc.write_out
// CHECK-NEXT: tgc_sym.constrain eq [%[[S2]], %[[S0]]] reason "tgc.write_out: dim 0 of the value must equal the out buffer's"
func.func @bmm_out(%a: tensor<?x3x4xf32> {tgc.example_shape = array<i64: 5, 3, 4>}, %b: tensor<?x4x5xf32> {tgc.example_shape = array<i64: 6, 4, 5>}, %c: tensor<?x3x5xf32> {tgc.example_shape = array<i64: 7, 3, 5>}) {
  %r = tgc.bmm %a, %b : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32>
  tgc.write_out %r into %c : tensor<?x3x5xf32> into tensor<?x3x5xf32>
  return
}

// -----

// Broadcasting a size that cannot be 1 against 4 requires equality.
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[S1:.*]] = tgc_sym.symbol "s1" range [2, inf] hint 5 from arg 1 dim 0
// CHECK: tgc.add
// CHECK-NEXT: tgc_sym.bind %{{.*}} [%{{.*}}, 4] : tensor<?x4xf32>
// CHECK-NEXT: tgc_sym.constrain eq [%[[S1]], 4] reason "tgc.add operands must broadcast in dimension 1 of the result"
func.func @broadcast(%x: tensor<?x4xf32> {tgc.example_shape = array<i64: 8, 4>}, %y: tensor<?xf32> {tgc.example_shape = array<i64: 5>}) -> tensor<?x4xf32> {
  %a = tgc.add %x, %y : tensor<?x4xf32>, tensor<?xf32> -> tensor<?x4xf32>
  return %a : tensor<?x4xf32>
}

// -----

// Flattening multiplies sizes (semi-affine), an inferred `?` divides the
// element count and requires divisibility, concat adds.
// CHECK-LABEL: func.func @reshapes
// CHECK-DAG: %[[S0:.*]] = tgc_sym.symbol "s0"
// CHECK-DAG: %[[S1:.*]] = tgc_sym.symbol "s1"
// CHECK: tgc_sym.bind %{{.*}} [%[[S0]] * %[[S1]]] : tensor<?xf32>
// CHECK: tgc_sym.bind %{{.*}} [%[[S0]] * %[[S1]] floordiv 2, 2] : tensor<?x2xf32>
// CHECK-NEXT: tgc_sym.constrain divisible [%[[S0]] * %[[S1]], 2]
// CHECK: tgc_sym.bind %{{.*}} [%[[S0]] * 2, %[[S1]]] : tensor<?x?xf32>
func.func @reshapes(%x: tensor<?x?xf32> {tgc.example_shape = array<i64: 6, 4>}) -> (tensor<?xf32>, tensor<?x2xf32>, tensor<?x?xf32>) {
  %f = tgc.reshape %x : tensor<?x?xf32> -> tensor<?xf32>
  %g = tgc.reshape %f : tensor<?xf32> -> tensor<?x2xf32>
  %c = tgc.concat %x, %x dim = 0 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %f, %g, %c : tensor<?xf32>, tensor<?x2xf32>, tensor<?x?xf32>
}

// -----

// Index operands are followed through tensor.dim and arith.
// CHECK-LABEL: func.func @chain
// CHECK: %[[S0:.*]] = tgc_sym.symbol "s0"
// CHECK: tgc.matmul
// CHECK-NEXT: tgc_sym.bind %{{.*}} [%[[S0]], 8]
// CHECK: tgc.slice
// CHECK-NEXT: tgc_sym.bind %{{.*}} [%[[S0]], 4]
// CHECK: tgc.sum
// CHECK-NEXT: tgc_sym.bind %{{.*}} [1, 4]
// CHECK: tgc.expand
// CHECK-NEXT: tgc_sym.bind %{{.*}} [%[[S0]] * 2, 4]
// CHECK-NOT: tgc_sym.constrain
func.func @chain(%x: tensor<?x16xf32> {tgc.example_shape = array<i64: 32, 16>}, %w: tensor<16x8xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = tgc.matmul %x, %w : tensor<?x16xf32>, tensor<16x8xf32> -> tensor<?x8xf32>
  %s = tgc.slice %m dim = 1 start = 2 end = 6 step = 1 : tensor<?x8xf32> -> tensor<?x4xf32>
  %r = tgc.sum %s dims [0] keepdim : tensor<?x4xf32> -> tensor<1x4xf32>
  %d = tensor.dim %x, %c0 : tensor<?x16xf32>
  %d2 = arith.muli %d, %c2 : index
  %e = tgc.expand %r [%d2] : tensor<1x4xf32> -> tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}

// -----

// A constraint no input can meet is an error at the op.
func.func @impossible(%x: tensor<?xf32>) {
  %s0 = tgc_sym.symbol "s0" range [2, 5] from arg 0 dim 0
  tgc_sym.bind %x [%s0] : tensor<?xf32>
  // expected-error @+1 {{'tgc.topk' op tgc.topk needs k (10) <= size of dim 0: requires s0 >= 10, which no input size allows}}
  %v, %i = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
  return
}

// -----

// A result declared static where the size is symbolic: the declaration
// becomes a constraint.
// CHECK-LABEL: func.func @declared_static
// CHECK: tgc_sym.constrain eq [%{{.*}}, 4] reason "tgc.convert result 0 is declared with size 4 in dim 0"
func.func @declared_static(%x: tensor<?xf32> {tgc.example_shape = array<i64: 4>}) -> tensor<4xf32> {
  %y = "tgc.relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %z = tgc.convert %y : tensor<?xf32> -> tensor<4xf32>
  %n = tgc.neg %z : tensor<4xf32>
  return %n : tensor<4xf32>
}


// -----

// An equality between a symbol and a min/max symbol defined from it
// (s0 == min(s0, 2^62 - 1), from slicing to a large end) stays a
// constraint: substituting s0 would define it through itself, and
// materializing the min would recurse forever (a crash before).
// CHECK-LABEL: func.func @no_self_substitution
// CHECK: %[[M:.*]] = tgc_sym.min [%s0, 4611686018427387903]
// CHECK: tgc_sym.constrain eq [%s0, %[[M]]]
func.func @no_self_substitution(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %v2 = tgc.slice %arg0 dim = 0 start = 0 end = 1 step = 1 : tensor<?xf32> -> tensor<?xf32>
  %v5 = tgc.concat %v2, %arg0 dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %v6 = tgc.slice %v5 dim = 0 start = 1 end = 4611686018427387904 step = 1 : tensor<?xf32> -> tensor<?xf32>
  %v7 = tgc.slice %v5 dim = 0 start = 0 end = -1 step = 1 : tensor<?xf32> -> tensor<?xf32>
  %v8 = tgc.sub %v6, %v7 : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %v8 : tensor<?xf32>
}
