// RUN: tgc-translate --tgc-to-launch-plan %s | FileCheck %s
// RUN: tgc-translate --tgc-to-launch-plan %s --tgc-launch-plan-function=mm | FileCheck %s
// RUN: not tgc-translate --tgc-to-launch-plan %s --tgc-launch-plan-function=missing 2>&1 | FileCheck %s --check-prefix=MISSING

// --tgc-to-launch-plan alone, on host functions written by hand: a GEMM
// step from the #tgc_gpu.gemm of a generic left on the host.

// CHECK-LABEL: function mm
// CHECK: arg 0 f32 2
// CHECK: arg 1 f32 2
// CHECK: result 0 f32 2
// CHECK: buffer result 0
// CHECK: buffer arg 0
// CHECK: buffer arg 1
// CHECK: gemm f32 out f32 m n{{[0-9]+}} n n{{[0-9]+}} k n{{[0-9]+}} batch n{{[0-9]+}} transa 0 transb 1 a b1 b b2 c b0 bias none epilogue none
// MISSING: error: the module has no function @missing
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @mm(%a: memref<4x8xf32>, %b: memref<16x8xf32>) -> memref<4x16xf32> {
  %c = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
  linalg.generic {indexing_maps = [#mk, #nk, #mn],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<16x8xf32>) outs(%c : memref<4x16xf32>)
      attrs = {tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %c : memref<4x16xf32>
}
tgc_guard.guard_set for @mm {
}
