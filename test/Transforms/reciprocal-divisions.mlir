// RUN: tgc-opt %s --tgc-reciprocal-divisions | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A softmax's last step (tgc-to-linalg marks the division): each element
// of a row divided by the row's sum, the same divisor along the innermost
// loop, becomes a product with the sum's reciprocal (no fast-math flag
// that would let LLVM estimate it).
// CHECK-LABEL: func.func @softmax_row
// CHECK: ^bb0(%[[E:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[ONE]], %[[S]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[E]], %[[R]] : f32
// CHECK-NEXT: linalg.yield %[[P]]
func.func @softmax_row(%e: tensor<4x8xf32>, %sum: tensor<4xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s {tgc.softmax_sum_division} : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Left as IEEE divisions: an unmarked division by a row value (its
// reciprocal could overflow: `x / x.sum(-1, keepdim=True)` of tiny rows),
// and a marked one whose divisor changes along the innermost loop.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: arith.mulf
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.mulf
// CHECK: arith.divf %{{.*}}, %{{.*}} {tgc.softmax_sum_division} : f32
// CHECK-NOT: arith.mulf
// CHECK: return
func.func @untouched(%x: tensor<4x8xf32>, %rows: tensor<4xf32>, %c: tensor<8xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %rows : tensor<4x8xf32>, tensor<4xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r0, %c : tensor<4x8xf32>, tensor<8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s {tgc.softmax_sum_division} : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %r1 : tensor<4x8xf32>
}
