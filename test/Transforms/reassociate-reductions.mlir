// RUN: tgc-opt %s --tgc-reassociate-reductions | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// The combiner of a row sum (the addf into the accumulator) gets reassoc
// and contract; the element computation (the mulf) keeps its flags.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: %[[SQ:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[SQ]] fastmath<reassoc,contract> : f32
func.func @sum_of_squares(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A max keeps its NaN semantics (maximumf) and gains only reordering.
// CHECK-LABEL: func.func @row_max
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
func.func @row_max(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// Elementwise generics (no reduction loop) and combiners that do not read
// the accumulator are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: fastmath
// CHECK: return
func.func @untouched(%x: tensor<4x8xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
