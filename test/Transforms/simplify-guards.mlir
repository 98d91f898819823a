// RUN: tgc-opt %s -tgc-simplify-guards -split-input-file | FileCheck %s

func.func private @f(tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)

// CHECK-LABEL: tgc_guard.guard_set for @f
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  %s1 = tgc_sym.symbol "s1" range [2, inf] from arg 1 dim 0
  %s2 = tgc_sym.symbol "s2" range [2, inf] from arg 2 dim 0
  %unused = tgc_sym.symbol "t" range [0, inf] from arg 2 dim 0
  // Aliasing and layout go last, ranks first.
  tgc_guard.no_alias arg 2, arg 0 reason "out buffer"
  tgc_guard.contiguous arg 0 reason "dense"
  // Two ranges on s0 merge; the tighter bound's reason wins.
  tgc_guard.range %s0 in [2, inf] reason "0/1 specialization"
  tgc_guard.relation eq [%s1, %s0] reason "bmm batch"
  tgc_guard.range %s0 in [10, inf] reason "topk k <= size"
  tgc_guard.range %s0 in [0, 4096] reason "a buffer of 4096"
  // The three equalities imply one another: one is dropped (the last one
  // tried that the remaining ones imply).
  tgc_guard.relation eq [%s2, %s1] reason "transitive"
  tgc_guard.relation eq [%s2, %s0] reason "out buffer batch"
  // Implied by s0 >= 10 and s1 == s0.
  tgc_guard.relation ge [%s1, 3] reason "weaker bound"
  // Not implied: kept.
  tgc_guard.relation divisible [%s0, 4] reason "reshape"
  tgc_guard.rank arg 0 is 1 reason "rank"
  tgc_guard.rank arg 0 is 1 reason "rank again"
  tgc_guard.dtype arg 1 is f32 reason "dtype"
}

// CHECK-NEXT: %[[S0:.*]] = tgc_sym.symbol "s0"
// CHECK-NEXT: %[[S1:.*]] = tgc_sym.symbol "s1"
// CHECK-NEXT: %[[S2:.*]] = tgc_sym.symbol "s2"
// CHECK-NEXT: tgc_guard.rank arg 0 is 1 reason "rank"
// CHECK-NEXT: tgc_guard.dtype arg 1 is f32 reason "dtype"
// CHECK-NEXT: tgc_guard.range %[[S0]] in [10, 4096] reason "topk k <= size; a buffer of 4096"
// CHECK-NEXT: tgc_guard.relation eq [%[[S1]], %[[S0]]] reason "bmm batch"
// CHECK-NEXT: tgc_guard.relation eq [%[[S2]], %[[S1]]] reason "transitive"
// CHECK-NEXT: tgc_guard.relation divisible [%[[S0]], 4] reason "reshape"
// CHECK-NEXT: tgc_guard.contiguous arg 0 reason "dense"
// CHECK-NEXT: tgc_guard.no_alias arg 2, arg 0 reason "out buffer"
// CHECK-NEXT: }

// -----

func.func private @g(tensor<?xf32>)

// A range guard that only restates what every size satisfies is dropped
// (sizes read from arguments are non-negative).
// CHECK-LABEL: tgc_guard.guard_set for @g
// CHECK-NEXT: tgc_guard.rank
// CHECK-NEXT: }
tgc_guard.guard_set for @g {
  %s0 = tgc_sym.symbol "s0" range [0, inf] from arg 0 dim 0
  tgc_guard.range %s0 in [0, inf] reason "nothing"
  tgc_guard.rank arg 0 is 1 reason "rank"
}

// -----

func.func private @h(tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)

// Inputs that share the batch size: guards are taken divisibility first,
// then equalities, then ranges, each against the guards kept before it
// with the equalities made substitutions (p1, p2, p3 become s0). So
// `p3 >= 3` follows from `p3 == s0` and `s0 >= 3`, and of the ranges on
// the batch size only one is kept.
// CHECK-LABEL: tgc_guard.guard_set for @h
// CHECK-NEXT: %[[S0:.*]] = tgc_sym.symbol "s0"
// CHECK-NEXT: %[[P1:.*]] = tgc_sym.symbol "p1"
// CHECK-NEXT: %[[P2:.*]] = tgc_sym.symbol "p2"
// CHECK-NEXT: %[[P3:.*]] = tgc_sym.symbol "p3"
// CHECK-NEXT: tgc_guard.range %[[S0]] in [3, inf] reason "batch"
// CHECK-NEXT: tgc_guard.relation eq [%[[P1]], %[[S0]]] reason "arg 1"
// CHECK-NEXT: tgc_guard.relation eq [%[[P2]], %[[S0]]] reason "arg 2"
// CHECK-NEXT: tgc_guard.relation eq [%[[P3]], %[[S0]]] reason "arg 3"
// CHECK-NEXT: }
tgc_guard.guard_set for @h {
  %s0 = tgc_sym.symbol "s0" range [0, inf] from arg 0 dim 0
  %p1 = tgc_sym.symbol "p1" range [0, inf] from arg 1 dim 0
  %p2 = tgc_sym.symbol "p2" range [0, inf] from arg 2 dim 0
  %p3 = tgc_sym.symbol "p3" range [0, inf] from arg 3 dim 0
  tgc_guard.range %s0 in [3, inf] reason "batch"
  tgc_guard.range %p2 in [3, inf] reason "batch of arg 2"
  tgc_guard.relation eq [%p1, %s0] reason "arg 1"
  tgc_guard.relation eq [%p2, %s0] reason "arg 2"
  tgc_guard.relation eq [%p3, %s0] reason "arg 3"
  tgc_guard.relation ge [%p3, 3] reason "implied"
}

// -----

func.func private @k(tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)

// A dynamic backward's sizes: rows of 64 (s0, s1) and the batch (s2). With
// s1 known to be a multiple of 64, `s1 floordiv 64 == s0 floordiv 64` makes
// s1 equal to s0, so s1's range is implied by s0's; s2's is not (s2 >= 2
// needs s0 >= 128).
// CHECK-LABEL: tgc_guard.guard_set for @k
// CHECK: tgc_guard.range %{{.*}} in [2, inf] reason "rows"
// CHECK-NEXT: tgc_guard.range %{{.*}} in [2, inf] reason "batch"
// CHECK-NEXT: tgc_guard.relation divisible
// CHECK-SAME: reason "reshape 0"
// CHECK-NEXT: tgc_guard.relation divisible
// CHECK-SAME: reason "reshape 1"
// CHECK-NEXT: tgc_guard.relation eq
// CHECK-SAME: reason "batch of rows"
// CHECK-NEXT: tgc_guard.relation eq
// CHECK-SAME: reason "same rows"
// CHECK-NEXT: }
tgc_guard.guard_set for @k {
  %s0 = tgc_sym.symbol "s0" range [0, inf] from arg 0 dim 0
  %s1 = tgc_sym.symbol "s1" range [0, inf] from arg 1 dim 0
  %s2 = tgc_sym.symbol "s2" range [0, inf] from arg 2 dim 0
  tgc_guard.range %s0 in [2, inf] reason "rows"
  tgc_guard.range %s1 in [2, inf] reason "rows of arg 1"
  tgc_guard.range %s2 in [2, inf] reason "batch"
  tgc_guard.relation divisible [%s0 * 256, 16384] reason "reshape 0"
  tgc_guard.relation divisible [%s1 * 256, 16384] reason "reshape 1"
  tgc_guard.relation eq [%s2, %s0 floordiv 64] reason "batch of rows"
  tgc_guard.relation eq [%s1 floordiv 64, %s0 floordiv 64] reason "same rows"
}
