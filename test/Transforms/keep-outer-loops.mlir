// RUN: tgc-opt %s --tgc-keep-outer-loops | FileCheck %s
// RUN: tgc-opt %s --tgc-keep-outer-loops=small-nest=0 | FileCheck %s --check-prefix=ALL
// RUN: tgc-opt %s --tgc-keep-outer-loops --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | tgc-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

// A nest: the row loops hold loops and are annotated; the innermost loops
// are left to LLVM. An outer loop's annotation ends on its back edge, as
// llvm.loop.unroll.disable (one node for all loops of one annotation:
// MLIR's translation shares it).

// CHECK: #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[COUNT:.*]] = #llvm.loop_unroll<count = 2 : i32>
// CHECK: #[[KEEP:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK: #[[KEPT:.*]] = #llvm.loop_annotation<unroll = #[[COUNT]]>
// CHECK-LABEL: func.func @nest
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.store
// CHECK: }
// CHECK-NOT: loop_annotation
// CHECK: } {loop_annotation = #[[KEEP]]}
// CHECK: scf.for
// CHECK: memref.load
// CHECK: }
// CHECK-NOT: loop_annotation
// CHECK: } {loop_annotation = #[[KEEP]]}
// CHECK: return

// LLVM-LABEL: define void @nest
// LLVM-NOT: !llvm.loop
// LLVM: br label %{{[0-9]+}}, !llvm.loop ![[L:[0-9]+]]
// LLVM-NOT: !llvm.loop
// LLVM: br label %{{[0-9]+}}, !llvm.loop ![[L]]
// LLVM-NOT: !llvm.loop
// LLVM-LABEL: define void @kept
// LLVM: ![[L]] = distinct !{![[L]], ![[D:[0-9]+]]}
// LLVM: ![[D]] = !{!"llvm.loop.unroll.disable"}
func.func @nest(%m: memref<8x256xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c256 step %c1 {
      memref.store %v, %m[%i, %j] : memref<8x256xf32>
    }
  }
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c256 step %c1 {
      %x = memref.load %m[%i, %j] : memref<8x256xf32>
      %y = arith.addf %x, %v : f32
      memref.store %y, %m[%i, %j] : memref<8x256xf32>
    }
  }
  return
}

// A loop that holds a while loop is an outer loop too; an annotation that
// is already there stays.

// CHECK-LABEL: func.func @kept
// CHECK: scf.while
// CHECK: } {loop_annotation = #[[KEEP]]}
// CHECK: scf.for
// CHECK: memref.store
// CHECK: }
// CHECK: } {loop_annotation = #[[KEPT]]}
func.func @kept(%m: memref<8xf32>, %v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %r = scf.while (%k = %c0) : (index) -> index {
      %go = arith.cmpi slt, %k, %n : index
      scf.condition(%go) %k : index
    } do {
    ^bb0(%k: index):
      %k1 = arith.addi %k, %c1 : index
      scf.yield %k1 : index
    }
    memref.store %v, %m[%r] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %v, %m[%j] : memref<8xf32>
    }
  } {loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<count = 2 : i32>>}
  return
}

// A small nest, a 3 x 3 window (9 copies when unrolled whole), is LLVM's
// to unroll: no annotation, unless small-nest is below 9. A nest with a
// dynamic bound is never small.

// CHECK-LABEL: func.func @window
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: }
// CHECK-NOT: loop_annotation
// CHECK: return
// ALL-LABEL: func.func @window
// ALL: } {loop_annotation = #{{.*}}}
// ALL: return
func.func @window(%m: memref<3x3xf32>, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %v) -> f32 {
    %t = scf.for %j = %c0 to %c3 step %c1 iter_args(%b = %a) -> f32 {
      %x = memref.load %m[%i, %j] : memref<3x3xf32>
      %y = arith.addf %x, %b : f32
      scf.yield %y : f32
    }
    scf.yield %t : f32
  }
  return %s : f32
}

// CHECK-LABEL: func.func @dynamic
// CHECK: } {loop_annotation = #[[KEEP]]}
func.func @dynamic(%m: memref<3x?xf32>, %v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      memref.store %v, %m[%i, %j] : memref<3x?xf32>
    }
  }
  return
}
