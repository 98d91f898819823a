// RUN: tgc-opt %s --pass-pipeline='builtin.module(func.func(tgc-mark-tf32{convolutions=1}))' | FileCheck %s --check-prefix=CONV
// RUN: tgc-opt %s --pass-pipeline='builtin.module(func.func(tgc-mark-tf32{matmuls=1}))' | FileCheck %s --check-prefix=MM
// RUN: tgc-opt %s --tgc-mark-tf32 | FileCheck %s --check-prefix=NONE

// tgc-mark-tf32 marks the f32 products whose PyTorch flag allows TF32:
// convolutions under torch.backends.cudnn.allow_tf32, matmul / bmm /
// linear under torch.backends.cuda.matmul.allow_tf32. Products of other
// types and attention are never marked.

// CONV-LABEL: func.func @products
// CONV: tgc.conv2d {{.*}} {tgc.tf32}
// CONV-NOT: tgc.tf32
// CONV: return

// MM-LABEL: func.func @products
// MM-NOT: tgc.conv2d {{.*}} {tgc.tf32}
// MM: tgc.matmul {{.*}} {tgc.tf32} : tensor<8x16xf32>
// MM: tgc.bmm {{.*}} {tgc.tf32}
// MM: tgc.linear {{.*}} {tgc.tf32}
// MM-NOT: tgc.tf32
// MM: return

// NONE-NOT: tgc.tf32
func.func @products(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                    %a: tensor<8x16xf32>, %b: tensor<16x4xf32>,
                    %p: tensor<2x8x16xf32>, %q: tensor<2x16x4xf32>,
                    %lw: tensor<4x16xf32>,
                    %h: tensor<8x16xf16>, %g: tensor<16x4xf16>,
                    %d: tensor<8x16xf64>, %e: tensor<16x4xf64>,
                    %qa: tensor<1x2x8x16xf32>)
    -> (tensor<2x4x6x6xf32>, tensor<8x4xf32>, tensor<2x8x4xf32>, tensor<8x4xf32>,
        tensor<8x4xf16>, tensor<8x4xf64>, tensor<1x2x8x16xf32>) {
  %c = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
  %m = tgc.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %bm = tgc.bmm %p, %q : tensor<2x8x16xf32>, tensor<2x16x4xf32> -> tensor<2x8x4xf32>
  %l = tgc.linear %a, %lw : tensor<8x16xf32>, tensor<4x16xf32> -> tensor<8x4xf32>
  %m16 = tgc.matmul %h, %g : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf16>
  %m64 = tgc.matmul %d, %e : tensor<8x16xf64>, tensor<16x4xf64> -> tensor<8x4xf64>
  %at = tgc.scaled_dot_product_attention %qa, %qa, %qa : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %c, %m, %bm, %l, %m16, %m64, %at : tensor<2x4x6x6xf32>, tensor<8x4xf32>, tensor<2x8x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>, tensor<8x4xf64>, tensor<1x2x8x16xf32>
}
