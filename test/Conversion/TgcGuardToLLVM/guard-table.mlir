// RUN: tgc-opt %s -tgc-lower-guards="table-min-guards=0" | FileCheck %s
// RUN: tgc-opt %s -tgc-lower-guards="table-min-guards=7" | FileCheck %s --check-prefix=CODE
// RUN: tgc-opt %s -tgc-lower-guards | FileCheck %s --check-prefix=CODE

// Guards a table can check (rank, dtype, device, contiguous, the range of
// an argument's size) become records {index, kind, arg, dim, a, b}, checked
// by one loop in the set's order; the others stay code between the runs.
// Six of the seven guards have records: with table-min-guards=7, or the
// default (64), all seven are code.

func.func private @f(tensor<?x8xf32>, tensor<?xf32>)

tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] hint 100 from arg 0 dim 0
  %s1 = tgc_sym.symbol "s1" range [0, inf] hint 800 from arg 1 dim 0
  %m = tgc_sym.min "m" [%s0, %s1]
  tgc_guard.rank arg 0 is 2 reason "rank"
  tgc_guard.dtype arg 0 is f32 reason "dtype"
  tgc_guard.range %m in [0, 1024] reason "a min: code"
  tgc_guard.range %s0 in [2, inf] reason "size"
  tgc_guard.contiguous arg 0 reason "dense rows"
  tgc_guard.device arg 1 is "cuda:1" reason "second GPU"
  tgc_guard.range %s1 in [7, 7] reason "specialized"
}

// The loop, once per module: records of 6 i64, the argument checked
// against num_args first, a switch on the kind.
// CHECK-LABEL: llvm.func internal @tgc_guard_.check_table(%{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64) -> i32
// CHECK: llvm.mlir.constant(6 : i64)
// CHECK: llvm.switch %{{.*}} : i32, ^bb{{[0-9]+}}(%{{.*}} : i32) [
// Contiguity: sizes checked to [0, 2^48), products with overflow checks.
// CHECK: llvm.mlir.constant(281474976710656 : i64)
// CHECK: llvm.intr.smul.with.overflow
// CHECK: llvm.mlir.constant(-1 : i32)

// Guards 0-1 from records [0, 2), guard 2 (a min of sizes) as code, then
// guards 3-6 from records [2, 6); a failing run returns its index.
// CHECK-LABEL: llvm.func @tgc_guard_f(%{{.*}}: !llvm.ptr, %{{.*}}: i32) -> i32
// CHECK: %[[T0:.*]] = llvm.mlir.addressof @tgc_guard_f.table
// CHECK: %[[B0:.*]] = llvm.mlir.constant(0 : i64)
// CHECK: %[[E0:.*]] = llvm.mlir.constant(2 : i64)
// CHECK: %[[R0:.*]] = llvm.call @tgc_guard_.check_table(%{{.*}}, %{{.*}}, %[[T0]], %[[B0]], %[[E0]])
// CHECK: llvm.cond_br %{{.*}}, ^bb1, ^bb[[FAIL:[0-9]+]](%[[R0]] : i32)
// CHECK: llvm.select
// CHECK: llvm.mlir.constant(1024 : i64)
// CHECK: %[[T1:.*]] = llvm.mlir.addressof @tgc_guard_f.table
// CHECK: %[[B1:.*]] = llvm.mlir.constant(2 : i64)
// CHECK: %[[E1:.*]] = llvm.mlir.constant(6 : i64)
// CHECK: %[[R1:.*]] = llvm.call @tgc_guard_.check_table(%{{.*}}, %{{.*}}, %[[T1]], %[[B1]], %[[E1]])
// CHECK: llvm.cond_br %{{.*}}, ^bb{{[0-9]+}}, ^bb[[FAIL]](%[[R1]] : i32)
// CHECK-NOT: llvm.call
// CHECK: llvm.return

// The records: rank (kind 0) of arg 0 is 2; dtype (1) f32 (code 0); range
// (4) of arg 0 dim 0 in [2, INT64_MAX]; contiguous (3) with rank 2; device
// (2) cuda (1) index 1; range of arg 1 dim 0 in [7, 7].
// CHECK: llvm.mlir.global internal constant @tgc_guard_f.table(dense<[0, 0, 0, 0, 2, 0, 1, 1, 0, 0, 0, 0, 3, 4, 0, 0, 2, 9223372036854775807, 4, 3, 0, 0, 2, 0, 5, 2, 1, 0, 1, 1, 6, 4, 1, 0, 7, 7]> : tensor<36xi64>)

// CODE-NOT: check_table
// CODE-NOT: .table
// CODE-LABEL: llvm.func @tgc_guard_f
// CODE-NOT: llvm.call
// CODE: llvm.return
