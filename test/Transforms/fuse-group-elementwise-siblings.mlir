// RUN: tgc-opt %s --tgc-fuse="permutes=1" --tgc-to-linalg --tgc-fuse-group-elementwise --canonicalize --cse -split-input-file | FileCheck %s
// RUN: tgc-opt %s --tgc-fuse="permutes=1" --tgc-to-linalg --tgc-fuse-group-elementwise="siblings=0" --canonicalize --cse -split-input-file | FileCheck %s --check-prefix=APART

// Two elementwise ops of one input, grouped horizontally by tgc-fuse:
// one generic with both outputs (one GPU kernel), not two.
// CHECK-LABEL: func.func @sin_cos
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK: math.sin
// CHECK: math.cos
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1
// APART-LABEL: func.func @sin_cos
// APART-COUNT-2: linalg.generic
func.func @sin_cos(%x: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %a = tgc.sin %x : tensor<64x32xf32>
  %b = tgc.cos %x : tensor<64x32xf32>
  return %a, %b : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// GPT-2's fused QKV projection: q, k and v are slices of one result,
// each split into heads by a reshape and a permute. tgc-fuse (with
// permutes: the GPU's fusion) groups the three permutes through the
// slices; they become one generic with three outputs.
// CHECK-LABEL: func.func @qkv_heads
// CHECK: %[[R:.*]]:3 = linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#2, %[[R]]#0, %[[R]]#1
// APART-LABEL: func.func @qkv_heads
// APART-COUNT-3: linalg.generic
func.func @qkv_heads(%qkv: tensor<2x8x96xf32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) {
  %q = tgc.slice %qkv dim = 2 start = 0 end = 32 step = 1 : tensor<2x8x96xf32> -> tensor<2x8x32xf32>
  %k = tgc.slice %qkv dim = 2 start = 32 end = 64 step = 1 : tensor<2x8x96xf32> -> tensor<2x8x32xf32>
  %v = tgc.slice %qkv dim = 2 start = 64 end = 96 step = 1 : tensor<2x8x96xf32> -> tensor<2x8x32xf32>
  %k4 = tgc.reshape %k : tensor<2x8x32xf32> -> tensor<2x8x4x8xf32>
  %kh = tgc.permute %k4 [0, 2, 1, 3] : tensor<2x8x4x8xf32> -> tensor<2x4x8x8xf32>
  %v4 = tgc.reshape %v : tensor<2x8x32xf32> -> tensor<2x8x4x8xf32>
  %vh = tgc.permute %v4 [0, 2, 1, 3] : tensor<2x8x4x8xf32> -> tensor<2x4x8x8xf32>
  %q4 = tgc.reshape %q : tensor<2x8x32xf32> -> tensor<2x8x4x8xf32>
  %qh = tgc.permute %q4 [0, 2, 1, 3] : tensor<2x8x4x8xf32> -> tensor<2x4x8x8xf32>
  return %qh, %kh, %vh : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>
}

// -----

// Generics of one group (tagged directly) that stay apart: the second
// reads the first's result through an op between them (merging would put
// the first after its reader), and a third over other loops.
// CHECK-LABEL: func.func @dependent
// CHECK-COUNT-3: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @dependent(%x: tensor<4x8xf32>, %y: tensor<32xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<32xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attrs = {tgc.group = 0 : i64} {
  ^bb0(%v: f32, %o: f32):
    %s = math.sin %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %t = tensor.insert_slice %x into %a[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attrs = {tgc.group = 0 : i64} {
  ^bb0(%v: f32, %o: f32):
    %c = math.cos %v : f32
    linalg.yield %c : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<32xf32>
  %c = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%y : tensor<32xf32>) outs(%e1 : tensor<32xf32>) attrs = {tgc.group = 0 : i64} {
  ^bb0(%v: f32, %o: f32):
    %s = math.exp %v : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<32xf32>
}
