// RUN: tgc-opt %s -tgc-plan-memory="checked-size=true" | FileCheck %s

// With checked-size the arena's byte count is computed with signed overflow
// checks, and only the whole count must be >= 0: the normal form of
// (d1 - 2) * d0 * 4 has a negative term (d0 * -8), which is no overflow.
// (A slice x[:, 1:T-1] of a dynamic T had this size; every call failed
// with "the arena ... does not fit in a 64-bit integer".)

// CHECK-LABEL: func.func @negative_term
// A product: overflow when the high half is not the low half's sign.
// CHECK: %[[LOW:.*]], %[[HIGH:.*]] = arith.mulsi_extended
// CHECK: %[[SIGN:.*]] = arith.shrsi %[[LOW]], %c63
// CHECK: arith.cmpi ne, %[[HIGH]], %[[SIGN]]
// A sum: overflow when both operands differ in sign from it.
// CHECK: %[[SUM:.*]] = arith.addi
// CHECK: %[[X1:.*]] = arith.xori %{{.*}}, %[[SUM]]
// CHECK: %[[X2:.*]] = arith.xori %{{.*}}, %[[SUM]]
// CHECK: %[[BOTH:.*]] = arith.andi %[[X1]], %[[X2]]
// CHECK: arith.cmpi slt, %[[BOTH]], %c0
// The whole count, negative: -1 (tgc-check-allocations fails the call).
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %{{.*}}, %c0
// CHECK: %[[OVER:.*]] = arith.ori %{{.*}}, %[[NEG]]
// CHECK: %[[BYTES:.*]] = arith.select %[[OVER]], %c-1{{.*}}, %{{.*}} : i64
// CHECK: %[[IDX:.*]] = arith.index_cast %[[BYTES]] : i64 to index
// CHECK: memref.alloc(%[[IDX]]) {alignment = 64 : i64, tgc.arena} : memref<?xi8>
func.func @negative_term(%x: memref<?x?xf32>, %o: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = memref.dim %x, %c0 : memref<?x?xf32>
  %d1 = memref.dim %x, %c1 : memref<?x?xf32>
  %n = arith.subi %d1, %c2 : index
  %a = memref.alloc(%d0, %n) : memref<?x?xf32>
  linalg.exp ins(%x : memref<?x?xf32>) outs(%a : memref<?x?xf32>)
  linalg.exp ins(%a : memref<?x?xf32>) outs(%o : memref<?x?xf32>)
  return
}
