// RUN: tgc-opt %s -tgc-lower-result-buffers | FileCheck %s

// A tagged result buffer asks the runtime (a weak function: only when the
// process has it) for the caller's memory, with the result's index, rank,
// sizes and byte count. Provided: the descriptor's allocated pointer is
// null (nobody frees the caller's memory). Otherwise malloc, aligned as
// finalize-memref-to-llvm does. Untagged allocations stay as they are.

// CHECK-DAG:   llvm.func extern_weak @tgc_result_buffer(i32, i64, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK-DAG:   llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-LABEL: func.func @f
// CHECK:         %[[N:.*]] = builtin.unrealized_conversion_cast %arg0 : index to i64
// CHECK:         %[[BYTES:.*]] = llvm.ptrtoint
// CHECK:         %[[SIZES:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK:         %[[S0:.*]] = llvm.getelementptr %[[SIZES]][0, 0]
// CHECK:         llvm.store %[[N]], %[[S0]] : i64, !llvm.ptr
// CHECK:         %[[S1:.*]] = llvm.getelementptr %[[SIZES]][0, 1]
// CHECK:         llvm.store %{{.*}}, %[[S1]] : i64, !llvm.ptr
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK:         %[[FN:.*]] = llvm.mlir.addressof @tgc_result_buffer
// CHECK:         %[[PRESENT:.*]] = llvm.icmp "ne" %[[FN]]
// CHECK:         %[[STATUS:.*]] = scf.if %[[PRESENT]] -> (i32) {
// CHECK:           %[[INDEX:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:           %[[RANK:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK:           %[[R:.*]] = llvm.call %[[FN]](%[[INDEX]], %[[RANK]], %[[SIZES]], %[[BYTES]], %[[SLOT]])
// CHECK:           scf.yield %[[R]] : i32
// CHECK:         } else {
// CHECK:           scf.yield %{{.*}} : i32
// CHECK:         }
// CHECK:         %[[GIVEN:.*]] = llvm.icmp "ne" %[[STATUS]]
// CHECK:         %[[PTRS:.*]]:2 = scf.if %[[GIVEN]] -> (!llvm.ptr, !llvm.ptr) {
// CHECK:           %[[P:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:           scf.yield %{{.*}}, %[[P]] : !llvm.ptr, !llvm.ptr
// CHECK:         } else {
// CHECK:           %[[PAD:.*]] = llvm.add %[[BYTES]], %{{.*}} : i64
// CHECK:           %[[M:.*]] = llvm.call @malloc(%[[PAD]])
// CHECK:           llvm.and
// CHECK:           %[[AL:.*]] = llvm.inttoptr
// CHECK:           scf.yield %[[M]], %[[AL]] : !llvm.ptr, !llvm.ptr
// CHECK:         }
// CHECK:         llvm.insertvalue %[[PTRS]]#0, %{{.*}}[0]
// CHECK:         llvm.insertvalue %[[PTRS]]#1, %{{.*}}[1]
// CHECK:         %[[A:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         return %[[B]], %[[A]]
func.func @f(%n: index) -> (memref<8xf32>, memref<?x4xf32>) {
  %a = memref.alloc(%n) {alignment = 64 : i64, tgc.result_index = 1 : i32} : memref<?x4xf32>
  %b = memref.alloc() : memref<8xf32>
  return %b, %a : memref<8xf32>, memref<?x4xf32>
}
