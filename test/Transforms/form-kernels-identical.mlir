// RUN: tgc-opt %s --tgc-fuse --tgc-to-linalg --tgc-form-kernels="remark-reused" -verify-diagnostics -mlir-print-debuginfo -split-input-file > %t.reused
// RUN: tgc-opt %s --tgc-fuse --tgc-to-linalg --tgc-form-kernels="reuse-identical-groups=false" -mlir-print-debuginfo -split-input-file > %t.plain
// RUN: diff %t.reused %t.plain
// RUN: FileCheck %s < %t.reused

// A model's repeated layers are the same fusion groups: each root of a
// layer after the first gets a clone of the kernel formed for the first
// layer's, its values, group number and locations replaced by its own.
// The IR is the same as when every group is tiled (the diff above, with
// locations), and the remark counts the clones.

// CHECK-LABEL: func.func @layers
// CHECK-COUNT-6: scf.forall
// CHECK: return
// expected-remark @below {{4 kernels cloned from identical groups'}}
func.func @layers(%x: tensor<8x64xf32>,
                  %w0: tensor<64xf32>, %b0: tensor<64xf32>, %m0: tensor<64x64xf32>, %c0: tensor<64xf32>,
                  %w1: tensor<64xf32>, %b1: tensor<64xf32>, %m1: tensor<64x64xf32>, %c1: tensor<64xf32>,
                  %w2: tensor<64xf32>, %b2: tensor<64xf32>, %m2: tensor<64x64xf32>, %c2: tensor<64xf32>)
    -> tensor<8x64xf32> {
  %n0 = tgc.layer_norm %x weight(%w0 : tensor<64xf32>) bias(%b0 : tensor<64xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<8x64xf32>
  %l0 = tgc.linear %n0, %m0, %c0 : tensor<8x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x64xf32>
  %g0 = tgc.gelu %l0 approximate = tanh : tensor<8x64xf32>
  %r0 = tgc.add %x, %g0 : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  %n1 = tgc.layer_norm %r0 weight(%w1 : tensor<64xf32>) bias(%b1 : tensor<64xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<8x64xf32>
  %l1 = tgc.linear %n1, %m1, %c1 : tensor<8x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x64xf32>
  %g1 = tgc.gelu %l1 approximate = tanh : tensor<8x64xf32>
  %r1 = tgc.add %r0, %g1 : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  %n2 = tgc.layer_norm %r1 weight(%w2 : tensor<64xf32>) bias(%b2 : tensor<64xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<8x64xf32>
  %l2 = tgc.linear %n2, %m2, %c2 : tensor<8x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<8x64xf32>
  %g2 = tgc.gelu %l2 approximate = tanh : tensor<8x64xf32>
  %r2 = tgc.add %r1, %g2 : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  return %r2 : tensor<8x64xf32>
}

// -----

// The same ops reading what is outside them in another pattern are not
// the same group: the second product's epilogue adds its own input where
// the first's adds another tensor; the third is the first's again.

// CHECK-LABEL: func.func @pattern
// CHECK-COUNT-3: scf.forall
// expected-remark @below {{1 kernels cloned from identical groups'}}
func.func @pattern(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>, %m: tensor<64x64xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %l0 = tgc.linear %x, %m : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %a0 = tgc.add %l0, %y : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  %l1 = tgc.linear %x, %m : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %a1 = tgc.add %l1, %x : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  %l2 = tgc.linear %y, %m : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %a2 = tgc.add %l2, %x : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  return %a0, %a1, %a2 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}
