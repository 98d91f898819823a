// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

func.func private @f(%x: tensor<?x?xf32>, %y: tensor<?xf32>, %out: tensor<*xf16>,
                     %k: i64, %n: index) -> tensor<?x?xf32>

// CHECK-LABEL: tgc_guard.guard_set for @f {
tgc_guard.guard_set for @f {
  // CHECK-NEXT: %s0 = tgc_sym.symbol "s0" range [2, inf] hint 8 from arg 0 dim 0
  // CHECK-NEXT: %s1 = tgc_sym.symbol "s1" range [2, inf] hint 16 from arg 0 dim 1
  // CHECK-NEXT: %s2 = tgc_sym.symbol "s2" range [0, inf] from arg 1 dim 0
  // CHECK-NEXT: %m = tgc_sym.min "m" [%s0, %s1]
  %s0 = tgc_sym.symbol "s0" range [2, inf] hint 8 from arg 0 dim 0
  %s1 = tgc_sym.symbol "s1" range [2, inf] hint 16 from arg 0 dim 1
  %s2 = tgc_sym.symbol "s2" range [0, inf] from arg 1 dim 0
  %m = tgc_sym.min "m" [%s0, %s1]
  // CHECK-NEXT: tgc_guard.dtype arg 0 is f32 reason "traced with float32"
  tgc_guard.dtype arg 0 is f32 reason "traced with float32"
  // An unranked argument is checked at run time.
  // CHECK-NEXT: tgc_guard.dtype arg 2 is f16 reason "out= dtype"
  tgc_guard.dtype arg 2 is f16 reason "out= dtype"
  // CHECK-NEXT: tgc_guard.rank arg 0 is 2 reason "tgc.matmul is compiled for 2-D x"
  tgc_guard.rank arg 0 is 2 reason "tgc.matmul is compiled for 2-D x"
  // CHECK-NEXT: tgc_guard.rank arg 2 is 3 reason "out= rank"
  tgc_guard.rank arg 2 is 3 reason "out= rank"
  // CHECK-NEXT: tgc_guard.device arg 0 is "cuda:0" reason "compiled for the first GPU"
  tgc_guard.device arg 0 is "cuda:0" reason "compiled for the first GPU"
  // CHECK-NEXT: tgc_guard.device arg 1 is "cuda" reason "GPU"
  tgc_guard.device arg 1 is "cuda" reason "GPU"
  // CHECK-NEXT: tgc_guard.device arg 2 is "cpu" reason "CPU"
  tgc_guard.device arg 2 is "cpu" reason "CPU"
  // CHECK-NEXT: tgc_guard.contiguous arg 0 reason "kernels index x as dense rows"
  tgc_guard.contiguous arg 0 reason "kernels index x as dense rows"
  // CHECK-NEXT: tgc_guard.aligned arg 0 to 16 reason "vectorized loads of 4 x f32"
  tgc_guard.aligned arg 0 to 16 reason "vectorized loads of 4 x f32"
  // CHECK-NEXT: tgc_guard.no_alias arg 0, arg 2 reason "out= buffer written in place"
  tgc_guard.no_alias arg 0, arg 2 reason "out= buffer written in place"
  // CHECK-NEXT: tgc_guard.no_alias_outs outs [0, 2] reason "arguments written in place"
  tgc_guard.no_alias_outs outs [0, 2] reason "arguments written in place"
  // CHECK-NEXT: tgc_guard.range %s0 in [10, inf] reason "tgc.topk k = 10 needs 10 rows"
  tgc_guard.range %s0 in [10, inf] reason "tgc.topk k = 10 needs 10 rows"
  // CHECK-NEXT: tgc_guard.range %s1 in [7, 7] reason "specialized"
  tgc_guard.range %s1 in [7, 7] reason "specialized"
  // CHECK-NEXT: tgc_guard.range %m in [0, 1024] reason "tile"
  tgc_guard.range %m in [0, 1024] reason "tile"
  // CHECK-NEXT: tgc_guard.relation eq [%s1, %s0 * 2] reason "tgc.cat of x with itself"
  tgc_guard.relation eq [%s1, %s0 * 2] reason "tgc.cat of x with itself"
  // CHECK-NEXT: tgc_guard.relation ge [%s2, %s0 + %s1] reason "ge"
  tgc_guard.relation ge [%s2, %s0 + %s1] reason "ge"
  // CHECK-NEXT: tgc_guard.relation le [%s0, %s0 floordiv 2 + 100] reason "le"
  tgc_guard.relation le [%s0, %s0 floordiv 2 + 100] reason "le"
  // CHECK-NEXT: tgc_guard.relation divisible [%s0, 8] reason "tgc.reshape to ?x8"
  tgc_guard.relation divisible [%s0, 8] reason "tgc.reshape to ?x8"
  // CHECK-NEXT: tgc_guard.relation broadcastable [%s2, %s1] reason "tgc.add"
  tgc_guard.relation broadcastable [%s2, %s1] reason "tgc.add"
  // Products and quotients of sizes.
  // CHECK-NEXT: tgc_guard.relation eq [%s2, %s0 * %s1] reason "tgc.reshape flattens x"
  tgc_guard.relation eq [%s2, %s0 * %s1] reason "tgc.reshape flattens x"
  // CHECK-NEXT: tgc_guard.relation ge [%s0 floordiv %s1 + 1, %m mod 4] reason "tiles"
  tgc_guard.relation ge [%s0 floordiv %s1 + 1, %m mod 4] reason "tiles"
  // CHECK-NEXT: tgc_guard.relation le [(%s0 + 1) * (%s1 - 2), -%s2 + 3] reason "nested"
  tgc_guard.relation le [((%s0 + 1) * (%s1 - 2)), -%s2 + 3] reason "nested"
  // CHECK-NEXT: tgc_guard.relation divisible [%s0 * %s1, %s1] reason "rows of s1"
  tgc_guard.relation divisible [%s0 * %s1, %s1] reason "rows of s1"
  // CHECK-NEXT: tgc_guard.scalar arg 3 in [3, 3] reason "specialized int k"
  tgc_guard.scalar arg 3 in [3, 3] reason "specialized int k"
  // CHECK-NEXT: tgc_guard.scalar arg 3 in [-inf, 100] reason "loop bound"
  tgc_guard.scalar arg 3 in [-inf, 100] reason "loop bound"
  // CHECK-NEXT: tgc_guard.scalar arg 4 in [-5, inf] reason "index"
  tgc_guard.scalar arg 4 in [-5, inf] reason "index"
  // CHECK-NEXT: tgc_guard.scalar arg 4 in [-inf, inf] reason "any"
  tgc_guard.scalar arg 4 in [-inf, inf] reason "any"
  // CHECK-NEXT: }
}

func.func private @empty()

// CHECK-LABEL: tgc_guard.guard_set for @empty {
// CHECK-NEXT: }
tgc_guard.guard_set for @empty {
}

// Symbol names are per guard set.
// CHECK-LABEL: tgc_guard.guard_set for @f attributes {tgc.origin = "test"} {
// CHECK-NEXT: %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 1 dim 0
tgc_guard.guard_set for @f attributes {tgc.origin = "test"} {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 1 dim 0
}

// The storage of a uint8 tensor: an i8 argument guarded as ui8.
func.func private @u8(%x: tensor<?xi8>)

// CHECK-LABEL: tgc_guard.guard_set for @u8 {
tgc_guard.guard_set for @u8 {
  // CHECK-NEXT: tgc_guard.dtype arg 0 is ui8 reason "compiled for ui8 at arg 0"
  tgc_guard.dtype arg 0 is ui8 reason "compiled for ui8 at arg 0"
}
