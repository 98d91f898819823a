// RUN: tgc-opt %s --tgc-hoist-checks -split-input-file | FileCheck %s

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<() -> ()>
#id1 = affine_map<(d0) -> (d0)>
#all1 = affine_map<(d0) -> ()>
#row = affine_map<(d0, d1) -> (d0)>

// An embedding's index check after a computation: the check (the flag's
// fill, its reduction over the indices, its read and the assert) moves
// before the computation; the gather stays.
// CHECK-LABEL: func.func @late_check
// CHECK: %[[FILL:.*]] = linalg.generic {{.*}} ins(%{{.*}} : i1) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[ALL:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%arg1 : tensor<2xi64>) outs(%[[FILL]] : tensor<i1>)
// CHECK: %[[OK:.*]] = tensor.extract %[[ALL]][]
// CHECK-NEXT: cf.assert %[[OK]], "tgc.embedding: index out of range"
// CHECK: math.exp
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x8xf32>
func.func @late_check(%arg0: tensor<4x8xf32>, %arg1: tensor<2xi64>) -> tensor<2x8xf32> {
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %7 = math.exp %in : f32
    linalg.yield %7 : f32
  } -> tensor<4x8xf32>
  %true = arith.constant true
  %c4 = arith.constant 4 : index
  %2 = tensor.empty() : tensor<i1>
  %3 = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []} ins(%true : i1) outs(%2 : tensor<i1>) {
  ^bb0(%in: i1, %out: i1):
    linalg.yield %in : i1
  } -> tensor<i1>
  %4 = linalg.generic {indexing_maps = [#id1, #all1], iterator_types = ["reduction"]} ins(%arg1 : tensor<2xi64>) outs(%3 : tensor<i1>) {
  ^bb0(%in: i64, %out: i1):
    %7 = arith.index_cast %in : i64 to index
    %8 = arith.cmpi sge, %7, %c0 : index
    %9 = arith.cmpi slt, %7, %c4 : index
    %10 = arith.andi %8, %9 : i1
    %11 = arith.andi %out, %10 : i1
    linalg.yield %11 : i1
  } -> tensor<i1>
  %ok = tensor.extract %4[] : tensor<i1>
  cf.assert %ok, "tgc.embedding: index out of range"
  %5 = tensor.empty() : tensor<2x8xf32>
  %6 = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2xi64>) outs(%5 : tensor<2x8xf32>) {
  ^bb0(%in: i64, %out: f32):
    %7 = arith.index_cast %in : i64 to index
    %8 = arith.maxsi %7, %c0 : index
    %9 = arith.minsi %8, %c3 : index
    %10 = linalg.index 1 : index
    %e = tensor.extract %1[%9, %10] : tensor<4x8xf32>
    linalg.yield %e : f32
  } -> tensor<2x8xf32>
  return %6 : tensor<2x8xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
#all1 = affine_map<(d0) -> ()>
#scalar = affine_map<() -> ()>

// Two checks of inputs keep their order; a view of an input (the labels'
// slice) moves with its check, and its other user keeps reading it.
// CHECK-LABEL: func.func @two_checks
// CHECK: cf.assert %{{.*}}, "first"
// CHECK: %[[S:.*]] = tensor.extract_slice %arg2[1] [2] [1]
// CHECK: cf.assert %{{.*}}, "second"
// CHECK: math.exp
// CHECK: return %{{.*}}, %[[S]]
func.func @two_checks(%x: tensor<4xf32>, %a: tensor<2xi64>, %b: tensor<3xi64>) -> (tensor<4xf32>, tensor<2xi64>) {
  %c0 = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %true = arith.constant true
  %f = tensor.empty() : tensor<i1>
  %fa = linalg.fill ins(%true : i1) outs(%f : tensor<i1>) -> tensor<i1>
  %ra = linalg.generic {indexing_maps = [#id1, #all1], iterator_types = ["reduction"]} ins(%a : tensor<2xi64>) outs(%fa : tensor<i1>) {
  ^bb0(%in: i64, %out: i1):
    %p = arith.cmpi sge, %in, %c0 : i64
    %q = arith.andi %out, %p : i1
    linalg.yield %q : i1
  } -> tensor<i1>
  %oka = tensor.extract %ra[] : tensor<i1>
  cf.assert %oka, "first"
  %s = tensor.extract_slice %b[1] [2] [1] : tensor<3xi64> to tensor<2xi64>
  %fb = linalg.fill ins(%true : i1) outs(%f : tensor<i1>) -> tensor<i1>
  %rb = linalg.generic {indexing_maps = [#id1, #all1], iterator_types = ["reduction"]} ins(%s : tensor<2xi64>) outs(%fb : tensor<i1>) {
  ^bb0(%in: i64, %out: i1):
    %p = arith.cmpi sge, %in, %c0 : i64
    %q = arith.andi %out, %p : i1
    linalg.yield %q : i1
  } -> tensor<i1>
  %okb = tensor.extract %rb[] : tensor<i1>
  cf.assert %okb, "second"
  return %y, %s : tensor<4xf32>, tensor<2xi64>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>
#all1 = affine_map<(d0) -> ()>

// Indices a reduction computes, which the function returns too: the
// check stays after it (moving it would move the reduction).
// CHECK-LABEL: func.func @shared_reduction
// CHECK: math.exp
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: cf.assert %{{.*}}, "computed"
func.func @shared_reduction(%x: tensor<4xf32>, %m: tensor<2x3xi64>) -> (tensor<4xf32>, tensor<2xi64>) {
  %c0 = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %z = tensor.empty() : tensor<2xi64>
  %z0 = linalg.fill ins(%c0 : i64) outs(%z : tensor<2xi64>) -> tensor<2xi64>
  %idx = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%m : tensor<2x3xi64>) outs(%z0 : tensor<2xi64>) {
  ^bb0(%in: i64, %out: i64):
    %s = arith.addi %in, %out : i64
    linalg.yield %s : i64
  } -> tensor<2xi64>
  %true = arith.constant true
  %f = tensor.empty() : tensor<i1>
  %fa = linalg.fill ins(%true : i1) outs(%f : tensor<i1>) -> tensor<i1>
  %ra = linalg.generic {indexing_maps = [#id1, #all1], iterator_types = ["reduction"]} ins(%idx : tensor<2xi64>) outs(%fa : tensor<i1>) {
  ^bb0(%in: i64, %out: i1):
    %p = arith.cmpi sge, %in, %c0 : i64
    %q = arith.andi %out, %p : i1
    linalg.yield %q : i1
  } -> tensor<i1>
  %ok = tensor.extract %ra[] : tensor<i1>
  cf.assert %ok, "computed"
  return %y, %idx : tensor<4xf32>, tensor<2xi64>
}

// -----

// A size check of the inputs moves first too.
// CHECK-LABEL: func.func @size_check
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[D:.*]] = tensor.dim %arg1, %[[C0]]
// CHECK: cf.assert %{{.*}}, "sizes"
// CHECK: linalg.generic
func.func @size_check(%x: tensor<4xf32>, %v: tensor<?xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %v, %c0 : tensor<?xf32>
  %nz = arith.cmpi ne, %d, %c0 : index
  cf.assert %nz, "sizes"
  return %y : tensor<4xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
#all1 = affine_map<(d0) -> ()>

// Labels padded (Hugging Face's causal-LM loss), returned as well: the
// pad moves with the check of the slice it feeds, and the return keeps
// reading it.
// CHECK-LABEL: func.func @padded_labels
// CHECK: %[[P:.*]] = tensor.pad %arg1
// CHECK: cf.assert %{{.*}}, "padded"
// CHECK: math.exp
// CHECK: return %{{.*}}, %[[P]]
func.func @padded_labels(%x: tensor<4xf32>, %l: tensor<2xi64>) -> (tensor<4xf32>, tensor<3xi64>) {
  %c0 = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %ignore = arith.constant -100 : i64
  %p = tensor.pad %l low[0] high[1] {
  ^bb0(%i: index):
    tensor.yield %ignore : i64
  } : tensor<2xi64> to tensor<3xi64>
  %s = tensor.extract_slice %p[1] [2] [1] : tensor<3xi64> to tensor<2xi64>
  %true = arith.constant true
  %f = tensor.empty() : tensor<i1>
  %fa = linalg.fill ins(%true : i1) outs(%f : tensor<i1>) -> tensor<i1>
  %ra = linalg.generic {indexing_maps = [#id1, #all1], iterator_types = ["reduction"]} ins(%s : tensor<2xi64>) outs(%fa : tensor<i1>) {
  ^bb0(%in: i64, %out: i1):
    %q = arith.cmpi sge, %in, %c0 : i64
    %a = arith.andi %out, %q : i1
    linalg.yield %a : i1
  } -> tensor<i1>
  %ok = tensor.extract %ra[] : tensor<i1>
  cf.assert %ok, "padded"
  return %y, %p : tensor<4xf32>, tensor<3xi64>
}
