// Single-head self-attention written out op by op (Q, K, V projections,
// Q K^T scaled, softmax, times V, output projection), with dynamic batch
// and sequence length, compiled for the CPU against the reference
// interpreter; one compile for three shapes.

// RUN: tgc-run %s --calls 0=2x5x16 --calls 0=3x12x16 --calls 0=2x2x16 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 3,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @attention(%x: tensor<?x?x16xf32>,
                     %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>,
                     %wv: tensor<16x16xf32>, %wo: tensor<16x16xf32>,
                     %bo: tensor<16xf32>) -> tensor<?x?x16xf32> {
  %q = tgc.linear %x, %wq : tensor<?x?x16xf32>, tensor<16x16xf32> -> tensor<?x?x16xf32>
  %k = tgc.linear %x, %wk : tensor<?x?x16xf32>, tensor<16x16xf32> -> tensor<?x?x16xf32>
  %v = tgc.linear %x, %wv : tensor<?x?x16xf32>, tensor<16x16xf32> -> tensor<?x?x16xf32>
  %kt = tgc.permute %k [0, 2, 1] : tensor<?x?x16xf32> -> tensor<?x16x?xf32>
  %s = tgc.matmul %q, %kt : tensor<?x?x16xf32>, tensor<?x16x?xf32> -> tensor<?x?x?xf32>
  %scale = tgc.constant dense<0.25> : tensor<f32>
  %ss = tgc.mul %s, %scale : tensor<?x?x?xf32>, tensor<f32> -> tensor<?x?x?xf32>
  %p = tgc.softmax %ss dim = 2 : tensor<?x?x?xf32>
  %a = tgc.matmul %p, %v : tensor<?x?x?xf32>, tensor<?x?x16xf32> -> tensor<?x?x16xf32>
  %o = tgc.linear %a, %wo, %bo : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<?x?x16xf32>
  return %o : tensor<?x?x16xf32>
}
