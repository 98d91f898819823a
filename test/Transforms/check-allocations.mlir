// RUN: tgc-opt %s -tgc-check-allocations -split-input-file -verify-diagnostics | FileCheck %s

// Each heap allocation's byte count is computed with overflow checks; with
// an overflow the allocation asks for 0 bytes; a null pointer or an
// overflow takes the failure path, which reports to the runtime (a weak
// function: only when the process has it), frees what was allocated
// before and returns poison; the rest of the body is the other branch.

// CHECK-DAG:   llvm.func extern_weak @tgc_report_alloc_failure(i64, !llvm.ptr)
// CHECK-DAG:   llvm.mlir.global internal constant @__tgc_alloc_0("the arena of intermediate values\00")
// CHECK-DAG:   llvm.mlir.global internal constant @__tgc_alloc_1("a ?x4xf32 buffer at {{.*}}check-allocations.mlir:[[#@LINE+26]]:8\00")
// CHECK-LABEL: func.func @two_buffers
// CHECK:         %[[N:.*]] = arith.index_cast %arg0 : index to i64
// CHECK:         %[[LOW:.*]], %[[HIGH:.*]] = arith.mulsi_extended %{{.*}}, %[[N]] : i64
// CHECK:         %[[SIZE:.*]] = arith.select %[[OVERFLOW:.*]], %{{.*}}, %arg0 : index
// CHECK:         %[[ARENA:.*]] = memref.alloc(%[[SIZE]]) {tgc.arena} : memref<?xi8>
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[ARENA]]
// CHECK:         %[[BYTES:.*]] = arith.select %[[OVERFLOW]], %c-1_i64, %[[LOW]] : i64
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (memref<?x4xf32>) {
// CHECK:           llvm.mlir.addressof @__tgc_alloc_0
// CHECK:           llvm.call %{{.*}}(%[[BYTES]], %{{.*}}) : !llvm.ptr, (i64, !llvm.ptr) -> ()
// CHECK:           %[[POISON:.*]] = ub.poison : memref<?x4xf32>
// CHECK:           scf.yield %[[POISON]]
// CHECK:         } else {
// CHECK:           %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?x4xf32>
// CHECK:           scf.if %{{.*}} {
// CHECK:             llvm.mlir.addressof @__tgc_alloc_1
// CHECK:             memref.dealloc %[[ARENA]]
// CHECK:           } else {
// CHECK:             memref.dealloc %[[ARENA]]
// CHECK:           }
// CHECK:           scf.yield %[[B]]
// CHECK:         }
// CHECK:         return %[[R]]
func.func @two_buffers(%n: index) -> memref<?x4xf32> {
  %a = memref.alloc(%n) {tgc.arena} : memref<?xi8>
  %b = memref.alloc(%n) : memref<?x4xf32>
  memref.dealloc %a : memref<?xi8>
  return %b : memref<?x4xf32>
}

// -----

// In a loop, a failure sets a flag of the function and skips the rest of
// the iteration (an scf.for passes its carried values on); after the
// loops the function reports the flag as a failed check.
// CHECK-LABEL: func.func @in_a_loop
// CHECK:         %[[FLAG:.*]] = memref.alloca() : memref<i32>
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:           memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:           %[[NEXT:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK:             memref.atomic_rmw assign %{{.*}}, %[[FLAG]][] : (i32, memref<i32>) -> i32
// CHECK:             scf.yield %[[ACC]] : f32
// CHECK:           } else {
// CHECK:             memref.dealloc
// CHECK:             scf.yield %{{.*}} : f32
// CHECK:           }
// CHECK:           scf.yield %[[NEXT]] : f32
// CHECK:         }
// CHECK:         %[[CODE:.*]] = memref.load %[[FLAG]][] : memref<i32>
// CHECK:         arith.cmpi eq, %[[CODE]], %c1_i32
// CHECK:         llvm.mlir.addressof @tgc_report_check_failure
// CHECK:         return
func.func @in_a_loop(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %t = memref.alloc(%n) : memref<?xf32>
    %v = memref.load %t[%c0] : memref<?xf32>
    %s = arith.addf %acc, %v : f32
    memref.dealloc %t : memref<?xf32>
    scf.yield %s : f32
  }
  return %r : f32
}

// -----

// A static type whose byte count overflows is a compile-time error.
func.func @too_big() -> memref<4611686018427387904x4xf32> {
  // expected-error @+1 {{a buffer of 'memref<4611686018427387904x4xf32>' needs more bytes than a 64-bit integer holds}}
  %a = memref.alloc() : memref<4611686018427387904x4xf32>
  return %a : memref<4611686018427387904x4xf32>
}
