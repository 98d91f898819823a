// RUN: tgc-opt %s -tgc-unshare-inits -split-input-file | FileCheck %s

// Two reductions share one +inf init (CSE merged them); the one bound for
// the out buffer gets its own empty tensor and fill, so that empty-tensor
// elimination makes only its chain the out buffer.
// CHECK-LABEL: func.func @siblings
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<f32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK:         %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<f32>)
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<f32>)
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} outs(%[[F2]] : tensor<f32>)
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} outs(%[[F]] : tensor<f32>)
// CHECK:         materialize_in_destination %[[A]] in restrict writable
#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>
func.func @siblings(%x: tensor<6xf32>, %y: tensor<6xf32>, %o1: tensor<f32>, %o2: tensor<f32>) {
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%inf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %a = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]} ins(%x : tensor<6xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.minimumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %b = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]} ins(%y : tensor<6xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.minimumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %d1 = bufferization.to_buffer %o1 : tensor<f32> to memref<f32>
  bufferization.materialize_in_destination %a in restrict writable %d1 : (tensor<f32>, memref<f32>) -> ()
  %d2 = bufferization.to_buffer %o2 : tensor<f32> to memref<f32>
  bufferization.materialize_in_destination %b in restrict writable %d2 : (tensor<f32>, memref<f32>) -> ()
  return
}

// -----

// A matmul and its bias epilogue share one empty tensor on purpose (the
// epilogue writes the product's buffer): the fill and the matmul are what
// the written value depends on, so nothing changes.
// CHECK-LABEL: func.func @epilogue
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT:     tensor.empty
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#mn = affine_map<(d0, d1) -> (d0, d1)>
#n = affine_map<(d0, d1) -> (d1)>
func.func @epilogue(%x: tensor<8x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>, %o: tensor<8x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x3xf32>) -> tensor<8x3xf32>
  %p = linalg.generic {indexing_maps = [#mk, #nk, #mn3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<8x4xf32>, tensor<3x4xf32>) outs(%f : tensor<8x3xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x3xf32>
  %r = linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]} ins(%p, %b : tensor<8x3xf32>, tensor<3xf32>) outs(%e : tensor<8x3xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<8x3xf32>
  %d = bufferization.to_buffer %o : tensor<8x3xf32> to memref<8x3xf32>
  bufferization.materialize_in_destination %r in restrict writable %d : (tensor<8x3xf32>, memref<8x3xf32>) -> ()
  return
}
