// RUN: tgc-opt %s --tgc-gpu-fold-gemm-transposes -split-input-file | FileCheck %s

#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// x.t() @ y (a weight gradient, dY^T X): the GEMM reads x through the
// transposed map (cuBLASLt's transposed A), the copy goes.

// CHECK-DAG: #[[KM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @a_transposed
// CHECK-NOT: iterator_types = ["parallel", "parallel"]}
// CHECK: linalg.generic {indexing_maps = [#[[KM]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<64x32xf32>, tensor<64x16xf32>)
func.func @a_transposed(%x: tensor<64x32xf32>, %y: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<32x64xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<32x16xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %y : tensor<32x64xf32>, tensor<64x16xf32>) outs(%cf : tensor<32x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

#t = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// Attention's backward, P^T dO over a batch: both operands may be
// transposed; the batch dim stays first. A transpose that another op also
// reads stays for it.

// CHECK-DAG: #[[BKM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-LABEL: func.func @batched
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x16x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[BKM]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<4x16x8xf32>, tensor<4x16x5xf32>)
// CHECK: return {{.*}}, %[[T]]
func.func @batched(%p: tensor<4x16x8xf32>, %d: tensor<4x16x5xf32>) -> (tensor<4x8x5xf32>, tensor<4x8x16xf32>) {
  %e = tensor.empty() : tensor<4x8x16xf32>
  %t = linalg.generic {indexing_maps = [#t, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<4x16x8xf32>) outs(%e : tensor<4x8x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<4x8x16xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<4x8x5xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<4x8x5xf32>) -> tensor<4x8x5xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%t, %d : tensor<4x8x16xf32>, tensor<4x16x5xf32>) outs(%cf : tensor<4x8x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x5xf32>
  return %r, %t : tensor<4x8x5xf32>, tensor<4x8x16xf32>
}

// -----

#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// The transposed input is a slice, which may bufferize to a strided view a
// GEMM does not take as a pointer: the copy stays.

// CHECK-LABEL: func.func @slice_source
// CHECK: tensor.extract_slice
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[T]], %arg1
func.func @slice_source(%x: tensor<64x64xf32>, %y: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %s = tensor.extract_slice %x[0, 0] [64, 32] [1, 1] : tensor<64x64xf32> to tensor<64x32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<32x64xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<32x16xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %y : tensor<32x64xf32>, tensor<64x16xf32>) outs(%cf : tensor<32x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s2 = arith.addf %acc, %m : f32
    linalg.yield %s2 : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

#t = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// A permutation that moves the batch dim (a head split, [B, T, H] to
// [T, B, H]) leaves no GEMM with the batch dims leading: the copy stays.

// CHECK-LABEL: func.func @batch_moved
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[T]], %arg1
func.func @batch_moved(%x: tensor<8x4x16xf32>, %y: tensor<4x16x5xf32>) -> tensor<4x8x5xf32> {
  %e = tensor.empty() : tensor<4x8x16xf32>
  %t = linalg.generic {indexing_maps = [#t, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x4x16xf32>) outs(%e : tensor<4x8x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<4x8x16xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<4x8x5xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<4x8x5xf32>) -> tensor<4x8x5xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%t, %y : tensor<4x8x16xf32>, tensor<4x16x5xf32>) outs(%cf : tensor<4x8x5xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x5xf32>
  return %r : tensor<4x8x5xf32>
}

// -----

#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// A copy that also converts (or computes) is not a pure transpose: stays.

// CHECK-LABEL: func.func @not_pure
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[T]], %arg1
func.func @not_pure(%x: tensor<64x32xf32>, %y: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<32x64xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<32x16xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %y : tensor<32x64xf32>, tensor<64x16xf32>) outs(%cf : tensor<32x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// An argument the function also writes is read from its entry copy (a new
// tensor, a dense buffer): the GEMM reads the copy transposed, never the
// argument itself.

// CHECK-LABEL: func.func @entry_copy
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%arg0)
// CHECK-NOT: iterator_types = ["parallel", "parallel"]}
// CHECK: linalg.generic {{.*}} ins(%[[COPY]], %arg1 : tensor<64x32xf32>, tensor<64x16xf32>)
func.func @entry_copy(%x: tensor<64x32xf32>, %y: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %copy = bufferization.alloc_tensor() copy(%x) : tensor<64x32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%copy : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<32x64xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<32x16xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %y : tensor<32x64xf32>, tensor<64x16xf32>) outs(%cf : tensor<32x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// One transpose read by two GEMMs, once of them as both operands
// (xt @ y, and xt @ xt^T through a second transpose): every read folds,
// the transposes go, each erased once.

// CHECK-LABEL: func.func @shared
// CHECK-NOT: iterator_types = ["parallel", "parallel"]}
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<64x32xf32>, tensor<64x32xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg0 : tensor<64x32xf32>, tensor<64x32xf32>)
func.func @shared(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<32x64xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<32x32xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %y : tensor<32x64xf32>, tensor<64x32xf32>) outs(%cf : tensor<32x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %e2 = tensor.empty() : tensor<64x32xf32>
  %tt = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<32x64xf32>) outs(%e2 : tensor<64x32xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<64x32xf32>
  %r2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %tt : tensor<32x64xf32>, tensor<64x32xf32>) outs(%cf : tensor<32x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r, %r2 : tensor<32x32xf32>, tensor<32x32xf32>
}

// -----

#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// An f64 product is not cuBLASLt's (matchGemm): the copy stays, so that
// its kernel does not read with a stride.

// CHECK-LABEL: func.func @f64
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[T]], %arg1
func.func @f64(%x: tensor<64x32xf64>, %y: tensor<64x16xf64>) -> tensor<32x16xf64> {
  %e = tensor.empty() : tensor<32x64xf64>
  %t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf64>) outs(%e : tensor<32x64xf64>) {
  ^bb0(%in: f64, %o: f64):
    linalg.yield %in : f64
  } -> tensor<32x64xf64>
  %z = arith.constant 0.0 : f64
  %ce = tensor.empty() : tensor<32x16xf64>
  %cf = linalg.fill ins(%z : f64) outs(%ce : tensor<32x16xf64>) -> tensor<32x16xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %y : tensor<32x64xf64>, tensor<64x16xf64>) outs(%cf : tensor<32x16xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<32x16xf64>
  return %r : tensor<32x16xf64>
}

// -----

#kt = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// Attention's backward, Q K^T's gradient over merged heads: the keys are
// transposed, then batch and heads merged (`k.transpose(-1, -2).reshape(
// B * H, D, T)`). The merge keeps the transpose's batch dims together and
// in order, so it is a transpose of the keys merged the same way: the GEMM
// reads the merged keys, transposed; the transpose and its collapse go.

// CHECK-DAG: #[[BNK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @merged_heads
// CHECK-NOT: iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK: %[[K:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2], [3]] : tensor<2x3x8x4xf32> into tensor<6x8x4xf32>
// CHECK: linalg.generic {indexing_maps = [{{.*}}, #[[BNK]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}}, %[[K]] : tensor<6x8x4xf32>, tensor<6x8x4xf32>)
func.func @merged_heads(%k: tensor<2x3x8x4xf32>, %q: tensor<6x8x4xf32>) -> tensor<6x8x8xf32> {
  %e = tensor.empty() : tensor<2x3x4x8xf32>
  %t = linalg.generic {indexing_maps = [#kt, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<2x3x8x4xf32>) outs(%e : tensor<2x3x4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x4x8xf32>
  %kc = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<2x3x4x8xf32> into tensor<6x4x8xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<6x8x8xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<6x8x8xf32>) -> tensor<6x8x8xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %kc : tensor<6x8x4xf32>, tensor<6x4x8xf32>) outs(%cf : tensor<6x8x8xf32>) {
  ^bb0(%p: f32, %s: f32, %acc: f32):
    %m = arith.mulf %p, %s : f32
    %u = arith.addf %acc, %m : f32
    linalg.yield %u : f32
  } -> tensor<6x8x8xf32>
  return %r : tensor<6x8x8xf32>
}

// -----

#ht = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// The heads split from the sequence (`x.view(B, T, H, D).transpose(1, 2)
// .reshape(B * H, T, D)`): the merged dims are not neighbours in the
// transpose's input, no collapse of it is the operand, and the copy stays.
// So does a collapse with another reader.

// CHECK-LABEL: func.func @split_heads
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<2x3x8x4xf32> into tensor<6x8x4xf32>
// CHECK-LABEL: func.func @collapse_shared
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
func.func @split_heads(%x: tensor<2x8x3x4xf32>, %y: tensor<6x4x8xf32>) -> tensor<6x8x8xf32> {
  %e = tensor.empty() : tensor<2x3x8x4xf32>
  %t = linalg.generic {indexing_maps = [#ht, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x8x3x4xf32>) outs(%e : tensor<2x3x8x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x8x4xf32>
  %tc = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<2x3x8x4xf32> into tensor<6x8x4xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<6x8x8xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<6x8x8xf32>) -> tensor<6x8x8xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%tc, %y : tensor<6x8x4xf32>, tensor<6x4x8xf32>) outs(%cf : tensor<6x8x8xf32>) {
  ^bb0(%p: f32, %s: f32, %acc: f32):
    %m = arith.mulf %p, %s : f32
    %u = arith.addf %acc, %m : f32
    linalg.yield %u : f32
  } -> tensor<6x8x8xf32>
  return %r : tensor<6x8x8xf32>
}

#kt = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
func.func @collapse_shared(%k: tensor<2x3x8x4xf32>, %q: tensor<6x8x4xf32>) -> (tensor<6x8x8xf32>, tensor<6x4x8xf32>) {
  %e = tensor.empty() : tensor<2x3x4x8xf32>
  %t = linalg.generic {indexing_maps = [#kt, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<2x3x8x4xf32>) outs(%e : tensor<2x3x4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x4x8xf32>
  %kc = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<2x3x4x8xf32> into tensor<6x4x8xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<6x8x8xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<6x8x8xf32>) -> tensor<6x8x8xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %kc : tensor<6x8x4xf32>, tensor<6x4x8xf32>) outs(%cf : tensor<6x8x8xf32>) {
  ^bb0(%p: f32, %s: f32, %acc: f32):
    %m = arith.mulf %p, %s : f32
    %u = arith.addf %acc, %m : f32
    linalg.yield %u : f32
  } -> tensor<6x8x8xf32>
  return %r, %kc : tensor<6x8x8xf32>, tensor<6x4x8xf32>
}

// -----

#nhwc = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// A permutation that is not its own inverse (NCHW to NHWC, `x.permute(0,
// 2, 3, 1).reshape(N, H * W, C)`): H and W are neighbours in x, so the
// GEMM reads x merged to [N, C, H * W], transposed. Merging W and C
// instead (`reshape(N, H, W * C)`, neighbours in the transpose but not in
// x; H == W keeps the shapes alike) is no collapse of x: the copy stays.

// CHECK-DAG: #[[BKM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-LABEL: func.func @nchw_to_nhwc
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : tensor<2x3x4x4xf32> into tensor<2x3x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BKM]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %arg1 : tensor<2x3x16xf32>, tensor<2x3x5xf32>)
// CHECK-LABEL: func.func @w_and_c_merged
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<2x4x4x3xf32> into tensor<2x4x12xf32>
func.func @nchw_to_nhwc(%x: tensor<2x3x4x4xf32>, %y: tensor<2x3x5xf32>) -> tensor<2x16x5xf32> {
  %e = tensor.empty() : tensor<2x4x4x3xf32>
  %t = linalg.generic {indexing_maps = [#nhwc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x3x4x4xf32>) outs(%e : tensor<2x4x4x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x4x3xf32>
  %tc = tensor.collapse_shape %t [[0], [1, 2], [3]] : tensor<2x4x4x3xf32> into tensor<2x16x3xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<2x16x5xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<2x16x5xf32>) -> tensor<2x16x5xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%tc, %y : tensor<2x16x3xf32>, tensor<2x3x5xf32>) outs(%cf : tensor<2x16x5xf32>) {
  ^bb0(%p: f32, %s: f32, %acc: f32):
    %m = arith.mulf %p, %s : f32
    %u = arith.addf %acc, %m : f32
    linalg.yield %u : f32
  } -> tensor<2x16x5xf32>
  return %r : tensor<2x16x5xf32>
}

func.func @w_and_c_merged(%x: tensor<2x3x4x4xf32>, %y: tensor<2x12x5xf32>) -> tensor<2x4x5xf32> {
  %e = tensor.empty() : tensor<2x4x4x3xf32>
  %t = linalg.generic {indexing_maps = [#nhwc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x3x4x4xf32>) outs(%e : tensor<2x4x4x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x4x3xf32>
  %tc = tensor.collapse_shape %t [[0], [1], [2, 3]] : tensor<2x4x4x3xf32> into tensor<2x4x12xf32>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<2x4x5xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%tc, %y : tensor<2x4x12xf32>, tensor<2x12x5xf32>) outs(%cf : tensor<2x4x5xf32>) {
  ^bb0(%p: f32, %s: f32, %acc: f32):
    %m = arith.mulf %p, %s : f32
    %u = arith.addf %acc, %m : f32
    linalg.yield %u : f32
  } -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}
