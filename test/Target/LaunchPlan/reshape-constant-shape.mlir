// RUN: tgc-translate --tgc-to-launch-plan %s | FileCheck %s

// A reshape to `?` sizes whose shape is a constant global (a Dynamo
// graph's view in a static specialization: the frontend made the sizes
// constants, the result type kept `?`) reads its sizes from the global's
// value; before, the launch plan failed with "has no size stored for dim 0"
// (HF RoBERTa through torch.compile(backend="tgc")).

// CHECK-LABEL: function reshaped
// CHECK: expr [[EIGHT:[0-9]+]] const 8
// CHECK: expr [[K:[0-9]+]] mul n{{[0-9]+}} n[[EIGHT]]
// CHECK: gemm f32 out f32 m n{{[0-9]+}} n n{{[0-9]+}} k n[[K]] batch n{{[0-9]+}} transa 0 transb 1 a b1 b b2 c b0
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @shape : memref<2xindex> = dense<[3, 8]>
func.func @reshaped(%a: memref<3x4x2xf32>, %b: memref<5x8xf32>) -> memref<3x5xf32> {
  %shape = memref.get_global @shape : memref<2xindex>
  %cast = memref.cast %a : memref<3x4x2xf32> to memref<?x4x2xf32>
  %r = memref.reshape %cast(%shape) : (memref<?x4x2xf32>, memref<2xindex>) -> memref<?x?xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<3x5xf32>
  linalg.generic {indexing_maps = [#mk, #nk, #mn],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%r, %b : memref<?x?xf32>, memref<5x8xf32>) outs(%c : memref<3x5xf32>)
      attrs = {tgc_gpu.gemm = #tgc_gpu.gemm<m = [0], n = 1, k = 2, trans_a = false, trans_b = true>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %c : memref<3x5xf32>
}
tgc_guard.guard_set for @reshaped {
}
