// RUN: tgc-opt %s --tgc-form-kernels="remark-reused" -verify-diagnostics -mlir-print-debuginfo -split-input-file > %t.reused
// RUN: tgc-opt %s --tgc-form-kernels="reuse-identical-groups=false" -mlir-print-debuginfo -split-input-file > %t.plain
// RUN: diff %t.reused %t.plain
// RUN: FileCheck %s < %t.reused

// Groups written in linalg (tgc-form-kernels' own input), for what the
// lowering from tgc never makes: a group whose first op is a root that
// is erased once formed, and which has a second root (its ops' block and
// its outside values were read through that erased op once), and groups
// of dynamic sizes, which are never cloned: tiling folds a size to the
// value that defines it (here the slices' %n and %m), which the clone
// would take from the earlier group (%n where %m is meant).

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @erased_first_root
// CHECK-COUNT-4: scf.forall
// expected-remark @below {{2 kernels cloned from identical groups'}}
func.func @erased_first_root(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %e0 = tensor.empty() : tensor<8x64xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x64xf32>) outs(%e0 : tensor<8x64xf32>) attrs = {tgc.group = 0 : i64} {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %e1 = tensor.empty() : tensor<8x64xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<8x64xf32>) outs(%e1 : tensor<8x64xf32>) attrs = {tgc.group = 0 : i64} {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %e2 = tensor.empty() : tensor<8x64xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<8x64xf32>) outs(%e2 : tensor<8x64xf32>) attrs = {tgc.group = 1 : i64} {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %e3 = tensor.empty() : tensor<8x64xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x64xf32>) outs(%e3 : tensor<8x64xf32>) attrs = {tgc.group = 1 : i64} {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %0, %1, %2, %3 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @dynamic
// CHECK: scf.forall {{.*}} in (%arg1
// CHECK: scf.forall {{.*}} in (%arg2
// expected-remark @below {{0 kernels cloned from identical groups'}}
func.func @dynamic(%src: tensor<?x64xf32>, %n: index, %m: index, %k: index)
    -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %x = tensor.extract_slice %src[0, 0] [%n, 64] [1, 1] : tensor<?x64xf32> to tensor<?x64xf32>
  %e0 = tensor.empty(%n) : tensor<?x64xf32>
  %0 = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %n : tensor<?x64xf32>, index) outs(%e0 : tensor<?x64xf32>) attrs = {tgc.group = 0 : i64} {
  ^bb0(%a: f32, %i: index, %o: f32):
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %y = tensor.extract_slice %src[0, 0] [%m, 64] [1, 1] : tensor<?x64xf32> to tensor<?x64xf32>
  %e1 = tensor.empty(%m) : tensor<?x64xf32>
  %1 = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%y, %k : tensor<?x64xf32>, index) outs(%e1 : tensor<?x64xf32>) attrs = {tgc.group = 1 : i64} {
  ^bb0(%a: f32, %i: index, %o: f32):
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  return %0, %1 : tensor<?x64xf32>, tensor<?x64xf32>
}
