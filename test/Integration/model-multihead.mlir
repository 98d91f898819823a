// RUN: tgc-run %s --calls 0=2x5x32 --calls 0=3x12x32 --calls 0=4x2x32 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 3,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

// Compiled for CUDA without a device, the two 4-d matmuls (one of them on a slice
// of the packed projection) are strided-batched GEMMs like the two
// projections (and test/Integration/GPU/attention.mlir runs it).
// RUN: tgc-run %s --device cuda --compile-only --ptx-only --calls 0=2x5x32 --json \
// RUN:   | FileCheck %s --check-prefix=GPU
// GPU: "gemms": 4,

// Multi-head self-attention as the Python frontend records it: one packed
// QKV projection, split into heads by reshape and permute, q/k/v taken as
// slices of the packed tensor (`qkv[0]`), 4-d batched matmuls, and the
// heads merged back. Batch and sequence length are dynamic.
func.func @multihead(%x: tensor<?x?x32xf32>, %wqkv: tensor<96x32xf32>, %bqkv: tensor<96xf32>,
                     %wo: tensor<32x32xf32>, %bo: tensor<32xf32>) -> tensor<?x?x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %qkv = tgc.linear %x, %wqkv, %bqkv : tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32> -> tensor<?x?x96xf32>
  %b = tensor.dim %qkv, %c0 : tensor<?x?x96xf32>
  %s = tensor.dim %qkv, %c1 : tensor<?x?x96xf32>
  %h = tgc.reshape %qkv [%b, %s] : tensor<?x?x96xf32> -> tensor<?x?x3x2x16xf32>
  %p = tgc.permute %h [2, 0, 3, 1, 4] : tensor<?x?x3x2x16xf32> -> tensor<3x?x2x?x16xf32>
  %q1 = tgc.slice %p dim = 0 start = 0 end = 1 step = 1 : tensor<3x?x2x?x16xf32> -> tensor<1x?x2x?x16xf32>
  %k1 = tgc.slice %p dim = 0 start = 1 end = 2 step = 1 : tensor<3x?x2x?x16xf32> -> tensor<1x?x2x?x16xf32>
  %v1 = tgc.slice %p dim = 0 start = 2 end = 3 step = 1 : tensor<3x?x2x?x16xf32> -> tensor<1x?x2x?x16xf32>
  %qb = tensor.dim %q1, %c1 : tensor<1x?x2x?x16xf32>
  %qs = tensor.dim %q1, %c3 : tensor<1x?x2x?x16xf32>
  %q = tgc.reshape %q1 [%qb, %qs] : tensor<1x?x2x?x16xf32> -> tensor<?x2x?x16xf32>
  %kb = tensor.dim %k1, %c1 : tensor<1x?x2x?x16xf32>
  %ks = tensor.dim %k1, %c3 : tensor<1x?x2x?x16xf32>
  %k = tgc.reshape %k1 [%kb, %ks] : tensor<1x?x2x?x16xf32> -> tensor<?x2x?x16xf32>
  %vb = tensor.dim %v1, %c1 : tensor<1x?x2x?x16xf32>
  %vs = tensor.dim %v1, %c3 : tensor<1x?x2x?x16xf32>
  %v = tgc.reshape %v1 [%vb, %vs] : tensor<1x?x2x?x16xf32> -> tensor<?x2x?x16xf32>
  %kt = tgc.permute %k [0, 1, 3, 2] : tensor<?x2x?x16xf32> -> tensor<?x2x16x?xf32>
  %scores = tgc.matmul %q, %kt : tensor<?x2x?x16xf32>, tensor<?x2x16x?xf32> -> tensor<?x2x?x?xf32>
  %scale = tgc.constant dense<0.25> : tensor<f32>
  %scaled = tgc.mul %scores, %scale : tensor<?x2x?x?xf32>, tensor<f32> -> tensor<?x2x?x?xf32>
  %att = tgc.softmax %scaled dim = 3 : tensor<?x2x?x?xf32>
  %o = tgc.matmul %att, %v : tensor<?x2x?x?xf32>, tensor<?x2x?x16xf32> -> tensor<?x2x?x16xf32>
  %ot = tgc.permute %o [0, 2, 1, 3] : tensor<?x2x?x16xf32> -> tensor<?x?x2x16xf32>
  %ob = tensor.dim %ot, %c0 : tensor<?x?x2x16xf32>
  %os = tensor.dim %ot, %c1 : tensor<?x?x2x16xf32>
  %merged = tgc.reshape %ot [%ob, %os] : tensor<?x?x2x16xf32> -> tensor<?x?x32xf32>
  %y = tgc.linear %merged, %wo, %bo : tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}
