// RUN: tgc-opt %s -tgc-lower-guards | FileCheck %s

func.func private @topk_out(tensor<?xf32>, tensor<10xf32>, tensor<10xi64>)

tgc_guard.guard_set for @topk_out {
  %s0 = tgc_sym.symbol "s0" range [2, inf] hint 100 from arg 0 dim 0
  tgc_guard.rank arg 0 is 1 reason "rank"
  tgc_guard.dtype arg 0 is f32 reason "dtype"
  tgc_guard.range %s0 in [10, inf] reason "tgc.topk needs k (10) <= size of dim 0"
  tgc_guard.no_alias arg 1, arg 0 reason "out buffer"
}

// The guard set is gone; a C-ABI function over tgc_arg_desc (56 bytes)
// returns the index of the first failing guard, or -1.
// CHECK-NOT: tgc_guard.guard_set
// CHECK-LABEL: llvm.func @tgc_guard_topk_out(%{{.*}}: !llvm.ptr, %{{.*}}: i32) -> i32
// Guard 0: the argument exists, then rank (offset 24) == 1.
// CHECK: llvm.icmp "slt"
// CHECK: llvm.getelementptr %{{.*}}[24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i64
// Guard 1: dtype (offset 40, i32) == 0 (f32).
// CHECK: llvm.getelementptr %{{.*}}[40] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i32
// Guard 2: sizes[0] (pointer at offset 8), range-checked, then >= 10.
// CHECK: llvm.getelementptr %{{.*}}[8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.icmp "sge" %{{.*}}, %{{.*}} : i64
// Guard 3: the byte extents of arg 1 (descriptor at 56) and arg 0 do not
// overlap, with checked arithmetic.
// CHECK: llvm.getelementptr %{{.*}}[80] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.intr.smul.with.overflow
// CHECK: llvm.ptrtoint
// CHECK: llvm.icmp "ule"
// The success path returns -1, the failure block its argument.
// CHECK: %[[M1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT: llvm.return %[[M1]] : i32
// CHECK: ^bb{{.*}}(%[[IDX:.*]]: i32):
// CHECK-NEXT: llvm.return %[[IDX]] : i32

// Readable metadata for the runtime's messages.
// CHECK-DAG: llvm.mlir.global internal constant @tgc_guard_topk_out_str{{[0-9]+}}("s0 >= 10\00")
// CHECK-DAG: llvm.mlir.global internal constant @tgc_guard_topk_out_str{{[0-9]+}}("tgc.topk needs k (10) <= size of dim 0\00")
// CHECK-DAG: llvm.mlir.global internal constant @tgc_guard_topk_out_str{{[0-9]+}}("s0\00")
// CHECK-DAG: llvm.mlir.global internal constant @tgc_guard_topk_out_guards() {{.*}} : !llvm.array<4 x struct<(ptr, ptr, i32, ptr)>>
// CHECK-DAG: llvm.mlir.global external constant @tgc_guard_info_topk_out() {{.*}} : !llvm.struct<(ptr, i32, ptr)>

