// RUN: tgc-opt %s -tgc-check-allocations -split-input-file -verify-diagnostics | FileCheck %s

// Each heap allocation's byte count is computed with overflow checks; with
// an overflow the allocation asks for 0 bytes; a null pointer or an
// overflow branches to a failure block, which reports to the runtime (a
// weak function: only when the process has it) and enters the chain that
// frees the buffers allocated before it and returns poison; the rest of
// the body is the other branch.

// CHECK-DAG:   llvm.func extern_weak @tgc_report_alloc_failure(i64, !llvm.ptr)
// CHECK-DAG:   llvm.mlir.global internal constant @__tgc_alloc_0("the arena of intermediate values\00")
// CHECK-DAG:   llvm.mlir.global internal constant @__tgc_alloc_1("a ?x4xf32 buffer at {{.*}}check-allocations.mlir:[[#@LINE+32]]:8\00")
// CHECK-LABEL: func.func @two_buffers
// CHECK:         %[[N:.*]] = arith.index_cast %arg0 : index to i64
// CHECK:         %[[LOW:.*]], %[[HIGH:.*]] = arith.mulsi_extended %{{.*}}, %[[N]] : i64
// CHECK:         %[[SIZE:.*]] = arith.select %[[OVERFLOW:.*]], %{{.*}}, %arg0 : index
// CHECK:         %[[ARENA:.*]] = memref.alloc(%[[SIZE]]) {tgc.arena} : memref<?xi8>
// CHECK:         %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[ARENA]]
// CHECK:         %[[BYTES:.*]] = arith.select %[[OVERFLOW]], %c-1_i64, %[[LOW]] : i64
// CHECK:         cf.cond_br %{{.*}}, ^[[FAIL1:.*]], ^[[REST:.*]]
// CHECK:       ^[[REST]]:
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?x4xf32>
// CHECK:         %[[BYTES2:.*]] = arith.select
// CHECK:         cf.cond_br %{{.*}}, ^[[FAIL2:.*]], ^[[OK:.*]]
// CHECK:       ^[[OK]]:
// CHECK-NEXT:    memref.dealloc %[[ARENA]]
// CHECK-NEXT:    return %[[B]]
// CHECK:       ^[[FAIL1]]:
// CHECK:         llvm.mlir.addressof @__tgc_alloc_0
// CHECK:         llvm.call %{{.*}}(%[[BYTES]], %{{.*}}) : !llvm.ptr, (i64, !llvm.ptr) -> ()
// CHECK:         cf.br ^[[RET:.*]](%c1_i32 : i32)
// CHECK:       ^[[FAIL2]]:
// CHECK:         llvm.mlir.addressof @__tgc_alloc_1
// CHECK:         llvm.call %{{.*}}(%[[BYTES2]], %{{.*}}) : !llvm.ptr, (i64, !llvm.ptr) -> ()
// CHECK:         cf.br ^[[FREE_ARENA:.*]](%c2_i32 : i32)
// CHECK:       ^[[RET]](%{{.*}}: i32):
// CHECK-NEXT:    %[[POISON:.*]] = ub.poison : memref<?x4xf32>
// CHECK-NEXT:    return %[[POISON]]
// CHECK:       ^[[FREE_ARENA]](%[[CODE:.*]]: i32):
// CHECK-NEXT:    memref.dealloc %[[ARENA]]
// CHECK-NEXT:    cf.br ^[[RET]](%[[CODE]] : i32)
func.func @two_buffers(%n: index) -> memref<?x4xf32> {
  %a = memref.alloc(%n) {tgc.arena} : memref<?xi8>
  %b = memref.alloc(%n) : memref<?x4xf32>
  memref.dealloc %a : memref<?xi8>
  return %b : memref<?x4xf32>
}

// -----

// Each buffer is freed in one place: failure k enters the chain at the
// buffer allocated last before it (freeing every live buffer on every
// failure path made an entry function quadratic in its buffers). A buffer
// freed before a failure is not freed again: the chain's argument is the
// failing allocation's number, and %b (freed before the fourth allocation)
// is freed only for failures before 4.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         cf.cond_br %{{.*}}, ^[[F1:.*]], ^
// CHECK:         %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         cf.cond_br %{{.*}}, ^[[F2:.*]], ^
// CHECK:         %[[C:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         cf.cond_br %{{.*}}, ^[[F3:.*]], ^
// CHECK:         memref.dealloc %[[B]]
// CHECK:         %[[D:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         cf.cond_br %{{.*}}, ^[[F4:.*]], ^
// CHECK:         return %[[A]], %[[C]], %[[D]]
// CHECK:       ^[[F1]]:
// CHECK:         cf.br ^[[RET:.*]](%c1_i32 : i32)
// CHECK:       ^[[F2]]:
// CHECK:         cf.br ^[[FREE_A:.*]](%c2_i32 : i32)
// CHECK:       ^[[F3]]:
// CHECK:         cf.br ^[[FREE_B:.*]](%c3_i32 : i32)
// CHECK:       ^[[F4]]:
// CHECK:         cf.br ^[[FREE_C:.*]](%c4_i32 : i32)
// CHECK:       ^[[RET]](%{{.*}}: i32):
// CHECK:         return
// CHECK:       ^[[FREE_A]](%[[CA:.*]]: i32):
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    cf.br ^[[RET]](%[[CA]] : i32)
// CHECK:       ^[[FREE_B]](%[[CB:.*]]: i32):
// CHECK:         %[[BEFORE:.*]] = arith.cmpi slt, %[[CB]], %c4_i32
// CHECK-NEXT:    scf.if %[[BEFORE]] {
// CHECK-NEXT:      memref.dealloc %[[B]]
// CHECK-NEXT:    }
// CHECK-NEXT:    cf.br ^[[FREE_A]](%[[CB]] : i32)
// CHECK:       ^[[FREE_C]](%[[CC:.*]]: i32):
// CHECK-NEXT:    memref.dealloc %[[C]]
// CHECK-NEXT:    cf.br ^[[FREE_B]](%[[CC]] : i32)
// CHECK-NOT:     memref.dealloc
func.func @chain(%n: index) -> (memref<?xf32>, memref<?xf32>, memref<?xf32>) {
  %a = memref.alloc(%n) : memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  %c = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  return %a, %c, %d : memref<?xf32>, memref<?xf32>, memref<?xf32>
}

// -----

// In a loop, a failure sets a flag of the function and skips the rest of
// the iteration (an scf.for passes its carried values on); after the
// loops the function reports the flag as a failed check.
// CHECK-LABEL: func.func @in_a_loop
// CHECK:         %[[FLAG:.*]] = memref.alloca() : memref<i32>
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:           memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:           %[[NEXT:.*]]:2 = scf.if %{{.*}} -> (f32, i32) {
// CHECK:             memref.atomic_rmw assign %{{.*}}, %[[FLAG]][] : (i32, memref<i32>) -> i32
// CHECK:             scf.yield %[[ACC]], %{{.*}} : f32, i32
// CHECK:           } else {
// CHECK:             memref.dealloc
// CHECK:             scf.yield %{{.*}}, %{{.*}} : f32, i32
// CHECK:           }
// CHECK:           scf.yield %[[NEXT]]#0 : f32
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

// -----

// A buffer of index elements (a shape for a dynamic reshape) counts 8 bytes
// an element (index has no bit width of its own: asking for one crashed,
// fuzz-crash.py seed 7002168).

// CHECK-LABEL: func.func @index_buffer
// CHECK:         %[[N:.*]] = arith.index_cast %arg0 : index to i64
// CHECK:         arith.mulsi_extended %c8_i64, %[[N]] : i64
// CHECK:         memref.alloc(%{{.*}}) : memref<?xindex>
func.func @index_buffer(%n: index) -> memref<?xindex> {
  %0 = memref.alloc(%n) : memref<?xindex>
  return %0 : memref<?xindex>
}
