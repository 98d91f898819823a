// RUN: tgc-opt %s -tgc-specialize-types -split-input-file | FileCheck %s
// RUN: tgc-opt %s -tgc-specialize-types -split-input-file | tgc-opt -split-input-file -verify-diagnostics

// Sizes the frontend pinned to numbers (0/1 specialization here: the binds
// of tgc-symbolize-shapes) become static in the argument types; results
// follow by their type rules: `maximum` of a 1x1 and a 1x0 is 1x0 (the
// lowering read `1x?` as an ordinary size and returned 1x1). The return
// reads a cast back to the declared result type.
// CHECK-LABEL: func.func @broadcast_one_and_zero
// CHECK-SAME:    (%[[A:.*]]: tensor<1x1xf32>, %[[B:.*]]: tensor<1x0xf32>) -> tensor<1x?xf32>
// CHECK:         %[[M:.*]] = tgc.maximum %[[A]], %[[B]] : tensor<1x1xf32>, tensor<1x0xf32> -> tensor<1x0xf32>
// CHECK:         %[[C:.*]] = tensor.cast %[[M]] : tensor<1x0xf32> to tensor<1x?xf32>
// CHECK:         return %[[C]]
func.func @broadcast_one_and_zero(%a: tensor<1x?xf32>, %b: tensor<1x?xf32>) -> tensor<1x?xf32> {
  tgc_sym.bind %a [1, 1] : tensor<1x?xf32>
  tgc_sym.bind %b [1, 0] : tensor<1x?xf32>
  %m = tgc.maximum %a, %b : tensor<1x?xf32>, tensor<1x?xf32> -> tensor<1x?xf32>
  return %m : tensor<1x?xf32>
}

// -----

// A chain: unary (same type), convert, layer norm, a reduction, a -1
// reshape; an expand has no rule here and reads a cast.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<1x8xf32>, %[[S:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<1x1xf32>)
// CHECK:         %[[E:.*]] = tgc.exp %[[X]] : tensor<1x8xf32>
// CHECK:         %[[H:.*]] = tgc.convert %[[E]] : tensor<1x8xf32> -> tensor<1x8xf16>
// CHECK:         %[[L:.*]] = tgc.layer_norm %[[E]] normalized_rank = 1 {{.*}}: tensor<1x8xf32>
// CHECK:         %[[R:.*]] = tgc.sum %[[L]] dims [1] : tensor<1x8xf32> -> tensor<1xf32>
// CHECK:         %[[F:.*]] = tgc.reshape %[[L]] : tensor<1x8xf32> -> tensor<2x4xf32>
// CHECK:         %[[CAST:.*]] = tensor.cast %[[Y]] : tensor<1x1xf32> to tensor<?x1xf32>
// CHECK:         tgc.expand %[[CAST]] : tensor<?x1xf32> -> tensor<?x8xf32>
// CHECK:         %[[ADD:.*]] = tgc.add %[[S]], %[[E]] : tensor<?x8xf32>, tensor<1x8xf32> -> tensor<?x8xf32>
func.func @chain(%x: tensor<?x8xf32>, %s: tensor<?x8xf32>, %y: tensor<?x1xf32>) -> (tensor<?x8xf16>, tensor<?xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  tgc_sym.bind %x [1, 8] : tensor<?x8xf32>
  tgc_sym.bind %y [1, 1] : tensor<?x1xf32>
  %e = tgc.exp %x : tensor<?x8xf32>
  %h = tgc.convert %e : tensor<?x8xf32> -> tensor<?x8xf16>
  %l = tgc.layer_norm %e normalized_rank = 1 eps = 1.0e-05 : tensor<?x8xf32>
  %r = tgc.sum %l dims [1] : tensor<?x8xf32> -> tensor<?xf32>
  %f = tgc.reshape %l : tensor<?x8xf32> -> tensor<?x4xf32>
  %g = tgc.expand %y : tensor<?x1xf32> -> tensor<?x8xf32>
  %a = tgc.add %s, %e : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %h, %r, %f, %g, %a : tensor<?x8xf16>, tensor<?xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Nothing specialized: nothing changes.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%{{.*}}: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NOT:     tensor.cast
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %e = tgc.exp %x : tensor<?x8xf32>
  return %e : tensor<?x8xf32>
}

// -----

// A result whose bind gives a number (a slice of 2 rows with step 2 has 1
// row for every size): a cast to the static type after the op, which its
// users (exp, add) follow; the broadcast of 1 against ? is then visible to
// the lowering.
// CHECK-LABEL: func.func @derived_size
// CHECK:         %[[S:.*]] = tgc.slice %arg0 dim = 0 start = 0 end = 2 step = 2 : tensor<?x4xf32> -> tensor<?x4xf32>
// CHECK:         %[[C:.*]] = tensor.cast %[[S]] : tensor<?x4xf32> to tensor<1x4xf32>
// CHECK:         %[[E:.*]] = tgc.exp %[[C]] : tensor<1x4xf32>
// CHECK:         tgc.add %arg0, %[[E]] : tensor<?x4xf32>, tensor<1x4xf32> -> tensor<?x4xf32>
func.func @derived_size(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  tgc_sym.bind %a [%s0, 4] : tensor<?x4xf32>
  %s = tgc.slice %a dim = 0 start = 0 end = 2 step = 2 : tensor<?x4xf32> -> tensor<?x4xf32>
  tgc_sym.bind %s [1, 4] : tensor<?x4xf32>
  %e = tgc.exp %s : tensor<?x4xf32>
  %r = tgc.add %a, %e : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// A size the type rule makes a number is that number in the bind too: the
// bmm's batch is (s0 - 1) ceildiv 3 by its shape rule and 1 by its type
// rule (y's batch is 1; a guard checks the constraint that they are equal).
// The bind said (s0 - 1) ceildiv 3 on a static dim (fuzzer seed 200338;
// seed 201800: a broadcast of 8 against s0 * 2).
// CHECK-LABEL: func.func @bind_follows_type_rule
// CHECK:         %[[B:.*]] = tgc.bmm {{.*}} -> tensor<1x?x?xf32>
// CHECK:         tgc_sym.bind %[[B]] [1, %s0, %s0] : tensor<1x?x?xf32>
func.func @bind_follows_type_rule(%x: tensor<?x?x16xf32>, %y: tensor<?x16x?xf32>) -> tensor<?x?x?xf32> {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  tgc_sym.bind %x [%s0, %s0, 16] : tensor<?x?x16xf32>
  tgc_sym.bind %y [1, 16, %s0] : tensor<?x16x?xf32>
  %s = tgc.slice %x dim = 0 start = 0 end = -1 step = 3 : tensor<?x?x16xf32> -> tensor<?x?x16xf32>
  tgc_sym.bind %s [(%s0 - 1) ceildiv 3, %s0, 16] : tensor<?x?x16xf32>
  %b = tgc.bmm %s, %y : tensor<?x?x16xf32>, tensor<?x16x?xf32> -> tensor<?x?x?xf32>
  tgc_sym.bind %b [(%s0 - 1) ceildiv 3, %s0, %s0] : tensor<?x?x?xf32>
  tgc_sym.constrain eq [1, (%s0 - 1) ceildiv 3] reason "tgc.bmm batch sizes must be equal"
  return %b : tensor<?x?x?xf32>
}

// -----

// A result refined by its type rule (2x?) and then by its bind (2x2): the
// return reads a cast back to the type before this pass (?x?), not to the
// type the rule gave (fuzzer seed 202016: 'tensor<8x2x2x?xf32>' returned
// from a function returning 'tensor<8x?x?x?xf32>').
// CHECK-LABEL: func.func @rule_then_bind
// CHECK:         %[[T:.*]] = tgc.slice {{.*}} : tensor<2x?xf32> -> tensor<2x?xf32>
// CHECK:         %[[C:.*]] = tensor.cast %[[T]] : tensor<2x?xf32> to tensor<2x2xf32>
// CHECK:         %[[R:.*]] = tensor.cast %[[C]] : tensor<2x2xf32> to tensor<?x?xf32>
// CHECK:         return %[[R]] : tensor<?x?xf32>
func.func @rule_then_bind(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  tgc_sym.bind %x [%s0, %s0] : tensor<?x?xf32>
  %s = tgc.slice %x dim = 0 start = -2 end = 9223372036854775807 step = 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  tgc_sym.bind %s [2, %s0] : tensor<?x?xf32>
  %t = tgc.slice %s dim = 1 start = -2 end = 9223372036854775807 step = 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  tgc_sym.bind %t [2, 2] : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}
