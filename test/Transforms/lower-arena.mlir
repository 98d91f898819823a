// RUN: tgc-opt %s --tgc-lower-arena -split-input-file | FileCheck %s

// The arena (tgc.arena) and its dealloc: the runtime's cache when the
// process has it (extern_weak functions, called through their address when
// not null), else an aligned malloc and free.

// CHECK-DAG: llvm.func extern_weak @tgc_arena_acquire(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func extern_weak @tgc_arena_release(!llvm.ptr)
// CHECK-LABEL: func.func @arena
// CHECK: %[[ACQ:.*]] = llvm.mlir.addressof @tgc_arena_acquire
// CHECK: %[[HAVE:.*]] = llvm.icmp "ne" %[[ACQ]]
// CHECK: %[[MEM:.*]]:2 = scf.if %[[HAVE]] -> (!llvm.ptr, !llvm.ptr)
// CHECK: %[[P:.*]] = llvm.call %{{.*}}(%{{.*}}) : !llvm.ptr, (i64) -> !llvm.ptr
// CHECK-NEXT: scf.yield %[[P]], %[[P]]
// CHECK: } else {
// CHECK: %[[M:.*]] = llvm.call @malloc
// CHECK: scf.yield %[[M]], %{{.*}}
// CHECK: memref.view
// CHECK: %[[ALLOCATED:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK: llvm.mlir.addressof @tgc_arena_release
// CHECK: scf.if
// CHECK-NEXT: llvm.mlir.addressof @tgc_arena_release
// CHECK-NEXT: llvm.call %{{.*}}(%[[ALLOCATED]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK: } else {
// CHECK-NEXT: llvm.call @free(%[[ALLOCATED]])
// CHECK-NOT: memref.dealloc
func.func @arena(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc(%n) {alignment = 64 : i64, tgc.arena} : memref<?xi8>
  %v = memref.view %a[%c0][] : memref<?xi8> to memref<4xf32>
  %x = memref.load %v[%c0] : memref<4xf32>
  memref.dealloc %a : memref<?xi8>
  return %x : f32
}

// -----

// Other allocations stay for finalize-memref-to-llvm; nothing is declared.

// CHECK-NOT: tgc_arena
// CHECK-LABEL: func.func @other
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<16xi8>
// CHECK: memref.dealloc
func.func @other() {
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xi8>
  memref.dealloc %a : memref<16xi8>
  return
}
