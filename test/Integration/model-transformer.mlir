// A pre-norm transformer encoder block (layer_norm, fused QKV linear, four
// heads through reshape/permute and causal scaled_dot_product_attention,
// output projection, residual, layer_norm, GELU MLP, residual) with dynamic
// batch and sequence length, compiled for the CPU against the reference
// interpreter; one compile for three shapes.

// RUN: tgc-run %s --calls 0=2x5x32 --calls 0=3x9x32 --calls 0=2x16x32 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 3,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @encoder_block(%x: tensor<?x?x32xf32>,
                         %ln1_w: tensor<32xf32>, %ln1_b: tensor<32xf32>,
                         %w_qkv: tensor<96x32xf32>, %b_qkv: tensor<96xf32>,
                         %w_o: tensor<32x32xf32>, %b_o: tensor<32xf32>,
                         %ln2_w: tensor<32xf32>, %ln2_b: tensor<32xf32>,
                         %w_1: tensor<64x32xf32>, %b_1: tensor<64xf32>,
                         %w_2: tensor<32x64xf32>, %b_2: tensor<32xf32>)
    -> tensor<?x?x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %B = tensor.dim %x, %c0 : tensor<?x?x32xf32>
  %T = tensor.dim %x, %c1 : tensor<?x?x32xf32>
  // Attention.
  %h = tgc.layer_norm %x weight(%ln1_w : tensor<32xf32>) bias(%ln1_b : tensor<32xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x?x32xf32>
  %qkv = tgc.linear %h, %w_qkv, %b_qkv : tensor<?x?x32xf32>, tensor<96x32xf32>, tensor<96xf32> -> tensor<?x?x96xf32>
  %q = tgc.slice %qkv dim = 2 start = 0 end = 32 step = 1 : tensor<?x?x96xf32> -> tensor<?x?x32xf32>
  %k = tgc.slice %qkv dim = 2 start = 32 end = 64 step = 1 : tensor<?x?x96xf32> -> tensor<?x?x32xf32>
  %v = tgc.slice %qkv dim = 2 start = 64 end = 96 step = 1 : tensor<?x?x96xf32> -> tensor<?x?x32xf32>
  %q4 = tgc.reshape %q [%B, %T] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %k4 = tgc.reshape %k [%B, %T] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %v4 = tgc.reshape %v [%B, %T] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %qh = tgc.permute %q4 [0, 2, 1, 3] : tensor<?x?x4x8xf32> -> tensor<?x4x?x8xf32>
  %kh = tgc.permute %k4 [0, 2, 1, 3] : tensor<?x?x4x8xf32> -> tensor<?x4x?x8xf32>
  %vh = tgc.permute %v4 [0, 2, 1, 3] : tensor<?x?x4x8xf32> -> tensor<?x4x?x8xf32>
  %ah = tgc.scaled_dot_product_attention %qh, %kh, %vh causal : tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32> -> tensor<?x4x?x8xf32>
  %a4 = tgc.permute %ah [0, 2, 1, 3] : tensor<?x4x?x8xf32> -> tensor<?x?x4x8xf32>
  %a = tgc.reshape %a4 [%B, %T] : tensor<?x?x4x8xf32> -> tensor<?x?x32xf32>
  %o = tgc.linear %a, %w_o, %b_o : tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<?x?x32xf32>
  %x1 = tgc.add %x, %o : tensor<?x?x32xf32>, tensor<?x?x32xf32> -> tensor<?x?x32xf32>
  // MLP.
  %h2 = tgc.layer_norm %x1 weight(%ln2_w : tensor<32xf32>) bias(%ln2_b : tensor<32xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x?x32xf32>
  %m1 = tgc.linear %h2, %w_1, %b_1 : tensor<?x?x32xf32>, tensor<64x32xf32>, tensor<64xf32> -> tensor<?x?x64xf32>
  %g = tgc.gelu %m1 : tensor<?x?x64xf32>
  %m2 = tgc.linear %g, %w_2, %b_2 : tensor<?x?x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<?x?x32xf32>
  %y = tgc.add %x1, %m2 : tensor<?x?x32xf32>, tensor<?x?x32xf32> -> tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}
