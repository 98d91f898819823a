// RUN: tgc-opt %s --tgc-cpu-pipeline="lower-to-llvm=false" | FileCheck %s --check-prefix=LOOPS
// RUN: tgc-opt %s --tgc-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: tgc-opt %s --tgc-cpu-pipeline="fuse=false lower-to-llvm=false" | FileCheck %s --check-prefix=UNFUSED
// RUN: tgc-opt %s --tgc-cpu-pipeline="lower-to-llvm=false" | FileCheck %s --check-prefix=RECIPROCAL
// RUN: tgc-opt %s --tgc-cpu-pipeline="lower-to-llvm=false exact-division=true" | FileCheck %s --check-prefix=EXACT

// The bundled MLP (linear, GELU, linear, softmax) with a symbolic batch
// size. Fused, it is three parallel kernels (linear+GELU, linear, softmax
// rows; each zero fill runs per row inside its kernel), with the two
// intermediates in one arena whose size is an expression of the batch
// size; the guards become a native function next to the entry point and
// its C wrapper.

// LOOPS-LABEL: func.func @mlp(%arg0: memref<?x64xf32>
// LOOPS-SAME: tgc.memory_plan = {arena_bytes = #{{.*}}, buffers = 2 : i64
// LOOPS: %[[D:.*]] = memref.dim %arg0, %c0
// LOOPS: %[[ARENA:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64, tgc.arena} : memref<?xi8>
// LOOPS: omp.parallel
// LOOPS: omp.wsloop
// LOOPS: omp.loop_nest (%{{.*}}) : index = (%c0) to (%[[D]]) step (%c8)
// LOOPS: vector.fma
// LOOPS: memref.view %[[ARENA]]
// LOOPS-NOT: scf.for %{{.*}} = %c0 to %[[D]]
// LOOPS: omp.parallel
// LOOPS-NOT: scf.for %{{.*}} = %c0 to %[[D]]
// LOOPS: omp.parallel
// LOOPS-NOT: omp.parallel
// LOOPS: memref.dealloc %[[ARENA]]
// LOOPS: llvm.func @tgc_guard_mlp

// LLVM-DAG: llvm.func @mlp(
// LLVM-DAG: llvm.func @_mlir_ciface_mlp(
// LLVM-DAG: llvm.func @tgc_guard_mlp(%{{.*}}: !llvm.ptr, %{{.*}}: i32) -> i32
// LLVM-DAG: llvm.mlir.global external constant @tgc_guard_info_mlp()
// LLVM-DAG: omp.parallel

// Without fusion every op is its own kernel (linear, GELU, linear,
// softmax) and its own arena buffer.
// UNFUSED-LABEL: func.func @mlp
// UNFUSED-SAME: buffers = 3 : i64
// UNFUSED-COUNT-4: {{^    }}omp.parallel
// UNFUSED-NOT: {{^    }}omp.parallel
func.func @mlp(%x: tensor<?x64xf32>,
               %w1: tensor<128x64xf32>, %b1: tensor<128xf32>,
               %w2: tensor<10x128xf32>, %b2: tensor<10xf32>)
    -> tensor<?x10xf32> {
  %h = tgc.linear %x, %w1, %b1 : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %a = tgc.gelu %h : tensor<?x128xf32>
  %y = tgc.linear %a, %w2, %b2 : tensor<?x128xf32>, tensor<10x128xf32>, tensor<10xf32> -> tensor<?x10xf32>
  %p = tgc.softmax %y dim = 1 : tensor<?x10xf32>
  return %p : tensor<?x10xf32>
}

// The softmax multiplies each row by one reciprocal of its sum
// (tgc-reciprocal-divisions: `1 / sum`, then a product in the row's loop);
// exact-division keeps the IEEE division.
// RECIPROCAL: %[[R:.*]] = arith.divf %cst{{.*}}, %{{.*}} : f32
// RECIPROCAL: arith.mulf %{{.*}}, %[[R]] : f32
// EXACT: arith.divf %{{.*}}, %{{.*}} {tgc.softmax_sum_division} : f32
