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
