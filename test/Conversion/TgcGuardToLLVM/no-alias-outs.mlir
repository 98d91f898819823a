// RUN: tgc-opt %s -tgc-lower-guards | FileCheck %s

func.func private @step(tensor<4xf32>, tensor<4xf32>, i64, tensor<4xf32>)

tgc_guard.guard_set for @step {
  tgc_guard.no_alias_outs outs [0, 3] reason "arguments written in place"
}

// The extents of the three tensor arguments (descriptors at 0, 56 and 168;
// the scalar is skipped) go to stack arrays, with their out flags; then one
// loop over the pairs (i < j) fails the guard for a pair with an out
// buffer whose non-empty ranges overlap.
// CHECK-LABEL: llvm.func @tgc_guard_step
// CHECK: %[[N:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK: %[[STARTS:.*]] = llvm.alloca %[[N]] x i64
// CHECK: %[[ENDS:.*]] = llvm.alloca %[[N]] x i64
// CHECK: %[[FLAGS:.*]] = llvm.alloca %[[N]] x i8
// CHECK: llvm.intr.smul.with.overflow
// CHECK: llvm.getelementptr %{{.*}}[168] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.br ^[[OUTER:bb[0-9]+]](%{{.*}} : i64)
// CHECK: ^[[OUTER]](%[[I:.*]]: i64):
// CHECK: llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK: ^{{bb[0-9]+}}(%[[J:.*]]: i64):
// CHECK: llvm.icmp "slt" %[[J]], %[[N]] : i64
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i8
// CHECK: llvm.icmp "ult"
// CHECK: llvm.cond_br %{{.*}}, ^{{bb[0-9]+}}(%{{.*}} : i32), ^
