// ViT's embeddings and first layer norm, as the Python frontend records HF
// ViTModel: a patch convolution, flattened and transposed to tokens, a
// class token concatenated in front, position embeddings added, then the
// layer norm. On the GPU the concat's copies once ran inside the layer
// norm's row kernel, whose stats buffers reused the copies' sources: the
// patch tokens all came out equal (issue 17). Against the reference
// interpreter; utils/run-gpu-tests.py --cpu-tests runs it on the GPU too.

// RUN: tgc-run %s --check reference --json | FileCheck %s
// CHECK: "reference_ok": true

func.func @vit_embed(%px: tensor<4x3x64x64xf32>, %w: tensor<128x3x8x8xf32>, %b: tensor<128xf32>,
                     %cls: tensor<1x1x128xf32>, %pos: tensor<1x65x128xf32>,
                     %g: tensor<128xf32>, %beta: tensor<128xf32>) -> tensor<4x65x128xf32> {
  %c = tgc.conv2d %px, %w bias(%b : tensor<128xf32>) stride [8, 8] padding [0, 0] dilation [1, 1] groups = 1 : tensor<4x3x64x64xf32>, tensor<128x3x8x8xf32> -> tensor<4x128x8x8xf32>
  %f = tgc.reshape %c : tensor<4x128x8x8xf32> -> tensor<4x128x64xf32>
  %t = tgc.permute %f [0, 2, 1] : tensor<4x128x64xf32> -> tensor<4x64x128xf32>
  %k = tgc.expand %cls : tensor<1x1x128xf32> -> tensor<4x1x128xf32>
  %e = tgc.concat %k, %t dim = 1 : (tensor<4x1x128xf32>, tensor<4x64x128xf32>) -> tensor<4x65x128xf32>
  %p = tgc.add %e, %pos : tensor<4x65x128xf32>, tensor<1x65x128xf32> -> tensor<4x65x128xf32>
  %n = tgc.layer_norm %p weight(%g : tensor<128xf32>) bias(%beta : tensor<128xf32>) normalized_rank = 1 eps = 1.0e-12 : tensor<4x65x128xf32>
  return %n : tensor<4x65x128xf32>
}
