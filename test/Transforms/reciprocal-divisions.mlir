// RUN: tgc-opt %s --tgc-reciprocal-divisions | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#scalar = affine_map<(d0, d1) -> ()>

// A softmax's last step: each element of a row divided by the row's sum,
// the same divisor along the innermost loop. The division gets arcp (its
// other flags kept); LLVM then multiplies by one reciprocal per row.
// CHECK-LABEL: func.func @row_by_sum
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp,contract> : f32
func.func @row_by_sum(%e: tensor<4x8xf32>, %sum: tensor<4xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s fastmath<contract> : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// One computed scalar for every element (`x / x.sum()`), in f64 too.
// CHECK-LABEL: func.func @by_computed_scalar
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : f64
func.func @by_computed_scalar(%x: tensor<4x8xf64>, %t: tensor<f64>, %init: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %r = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : tensor<4x8xf64>, tensor<f64>) outs(%init : tensor<4x8xf64>) {
  ^bb0(%a: f64, %s: f64, %o: f64):
    %q = arith.divf %a, %s : f64
    linalg.yield %q : f64
  } -> tensor<4x8xf64>
  return %r : tensor<4x8xf64>
}

// Left as IEEE divisions: a constant divisor (`x / 3`, as eager divides),
// a divisor that changes along the innermost loop (a column's value), one
// read elementwise, and one from the output's block argument.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: arcp
// CHECK: return
func.func @untouched(%x: tensor<4x8xf32>, %c: tensor<8xf32>, %init: tensor<4x8xf32>, %acc: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %three = arith.constant dense<3.0> : tensor<4xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %three : tensor<4x8xf32>, tensor<4xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r0, %c : tensor<4x8xf32>, tensor<8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r1, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%r2 : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.divf %a, %o : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  return %r2, %r3 : tensor<4x8xf32>, tensor<4xf32>
}
