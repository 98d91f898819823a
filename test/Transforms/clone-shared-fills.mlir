// RUN: tgc-opt %s --tgc-clone-shared-fills | FileCheck %s

// A batch norm's two statistics start from one zero tensor (CSE merged
// their fills): each reduction gets its own fill of its own empty tensor,
// right before it, so that bufferization writes each in place instead of
// copying the shared one. A fill read as an input stays shared; so does a
// fill with one init user.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#scalar = affine_map<(d0) -> ()>
#vec = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @two_reductions
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<8xf64>
// CHECK: %[[F0:.*]] = linalg.generic {{.*}} ins(%{{.*}} : f64) outs(%[[E0]] : tensor<8xf64>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%[[F0]] : tensor<8xf64>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8xf64>
// CHECK: %[[F1:.*]] = linalg.generic {{.*}} ins(%{{.*}} : f64) outs(%[[E1]] : tensor<8xf64>)
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[S]] : tensor<4x8xf32>, tensor<8xf64>) outs(%[[F1]] : tensor<8xf64>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8xf64>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%[[E2]] : tensor<8xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[F0]] : tensor<8xf64>) outs(%[[F2]] : tensor<8xf64>)
func.func @two_reductions(%x: tensor<4x8xf32>) -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<8xf64>
  %fill = linalg.generic {indexing_maps = [#scalar, #vec], iterator_types = ["parallel"]} ins(%zero : f64) outs(%e : tensor<8xf64>) {
  ^bb0(%in: f64, %out: f64):
    linalg.yield %in : f64
  } -> tensor<8xf64>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%fill : tensor<8xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %r = arith.addf %acc, %w : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["reduction", "parallel"]} ins(%x, %sum : tensor<4x8xf32>, tensor<8xf64>) outs(%fill : tensor<8xf64>) {
  ^bb0(%in: f32, %m: f64, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %d = arith.subf %w, %m : f64
    %d2 = arith.mulf %d, %d : f64
    %r = arith.addf %acc, %d2 : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  %e2 = tensor.empty() : tensor<8xf64>
  %named = linalg.fill ins(%zero : f64) outs(%e2 : tensor<8xf64>) -> tensor<8xf64>
  %copy1 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%fill : tensor<8xf64>) outs(%named : tensor<8xf64>) {
  ^bb0(%in: f64, %out: f64):
    linalg.yield %in : f64
  } -> tensor<8xf64>
  %copy2 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%fill : tensor<8xf64>) outs(%named : tensor<8xf64>) {
  ^bb0(%in: f64, %out: f64):
    %two = arith.addf %in, %in : f64
    linalg.yield %two : f64
  } -> tensor<8xf64>
  return %sum, %sq, %copy1, %copy2 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
}

// One init user: nothing to clone.
// CHECK-LABEL: func.func @one_user
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT: tensor.empty
func.func @one_user(%x: tensor<4x8xf32>) -> tensor<8xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<8xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%e : tensor<8xf64>) -> tensor<8xf64>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%fill : tensor<8xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %r = arith.addf %acc, %w : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  return %sum : tensor<8xf64>
}
