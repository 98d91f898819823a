// Neural-network ops compiled for the CPU against the reference
// interpreter, each function on a dynamic batch with one compile for two
// sizes:
//   @norms      softmax and log_softmax over each dim, layer_norm over one
//               and two trailing dims (with and without affine), rms_norm,
//               and an f16 softmax and layer_norm;
//   @conv_pool  conv2d with stride, padding, dilation and groups, a 1x1
//               conv with bias, an unbatched conv; max_pool2d with padding,
//               ceil_mode and dilation; avg_pool2d with and without padding
//               in the divisor, divisor_override, unbatched; and conv,
//               pools over dynamic height and width;
//   @attention  scaled_dot_product_attention: plain, causal with a scale,
//               a broadcast bool mask and an additive float mask, with
//               query and key lengths that differ.

// RUN: tgc-run %s --entry norms --calls 0=2x3x16,4=2x16 --calls 0=5x3x16,4=5x16 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=NORMS
// NORMS:      "calls": 2,
// NORMS:      "compiles": 1,
// NORMS:      "reference_ok": true

// RUN: tgc-run %s --entry conv_pool --calls 0=2x4x9x9,6=1x2x9x11 --calls 0=3x4x9x9,6=1x2x16x7 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=CONV
// CONV:      "calls": 2,
// CONV:      "compiles": 1,
// CONV:      "reference_ok": true

// RUN: tgc-run %s --entry attention --calls 0=2x5x8,1=2x7x8,2=2x7x6,3=5x7,4=2x1x7 \
// RUN:   --calls 0=2x3x8,1=2x9x8,2=2x9x6,3=3x9,4=2x1x9 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=ATTN
// ATTN:      "calls": 2,
// ATTN:      "compiles": 1,
// ATTN:      "reference_ok": true

func.func @norms(%x: tensor<?x3x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>, %w2: tensor<3x16xf32>, %h: tensor<?x16xf16>)
    -> (tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x3x16xf32>,
        tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x16xf16>, tensor<?x16xf16>) {
  %0 = tgc.softmax %x dim = 2 : tensor<?x3x16xf32>
  %1 = tgc.softmax %x dim = 0 : tensor<?x3x16xf32>
  %2 = tgc.log_softmax %x dim = 1 : tensor<?x3x16xf32>
  %3 = tgc.layer_norm %x weight(%w : tensor<16xf32>) bias(%b : tensor<16xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x3x16xf32>
  %4 = tgc.layer_norm %x weight(%w2 : tensor<3x16xf32>) normalized_rank = 2 eps = 1.0e-03 : tensor<?x3x16xf32>
  %5 = tgc.rms_norm %x weight(%w : tensor<16xf32>) normalized_rank = 1 eps = 1.0e-06 : tensor<?x3x16xf32>
  %6 = tgc.rms_norm %x normalized_rank = 2 : tensor<?x3x16xf32>
  %7 = tgc.softmax %h dim = 1 : tensor<?x16xf16>
  %8 = tgc.layer_norm %h normalized_rank = 1 eps = 1.0e-05 : tensor<?x16xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x3x16xf32>,
        tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x3x16xf32>, tensor<?x16xf16>, tensor<?x16xf16>
}

func.func @conv_pool(%x: tensor<?x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %w1: tensor<3x4x1x1xf32>, %b1: tensor<3xf32>,
                     %u: tensor<4x9x9xf32>, %wu: tensor<2x4x3x3xf32>,
                     %img: tensor<1x2x?x?xf32>, %wi: tensor<3x2x3x3xf32>)
    -> (tensor<?x6x5x9xf32>, tensor<?x3x9x9xf32>, tensor<2x7x7xf32>,
        tensor<?x4x5x5xf32>, tensor<?x4x5x5xf32>, tensor<?x4x7x7xf32>,
        tensor<?x4x5x5xf32>, tensor<?x4x4x4xf32>, tensor<?x4x5x5xf32>, tensor<4x3x3xf32>,
        tensor<1x3x?x?xf32>, tensor<1x2x?x?xf32>, tensor<1x2x?x?xf32>) {
  %0 = tgc.conv2d %x, %w stride [2, 1] padding [1, 2] dilation [1, 2] groups = 2 : tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32> -> tensor<?x6x5x9xf32>
  %1 = tgc.conv2d %x, %w1 bias(%b1 : tensor<3xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<?x4x9x9xf32>, tensor<3x4x1x1xf32> -> tensor<?x3x9x9xf32>
  %2 = tgc.conv2d %u, %wu stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<4x9x9xf32>, tensor<2x4x3x3xf32> -> tensor<2x7x7xf32>
  %3 = tgc.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  %4 = tgc.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] ceil_mode : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  %5 = tgc.max_pool2d %x kernel [2, 2] stride [1, 1] padding [0, 0] dilation [2, 2] : tensor<?x4x9x9xf32> -> tensor<?x4x7x7xf32>
  %6 = tgc.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] {count_include_pad = false} : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  %7 = tgc.avg_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] {divisor_override = 5 : i64} : tensor<?x4x9x9xf32> -> tensor<?x4x4x4xf32>
  %8 = tgc.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<?x4x9x9xf32> -> tensor<?x4x5x5xf32>
  %9 = tgc.avg_pool2d %u kernel [3, 3] stride [3, 3] padding [0, 0] : tensor<4x9x9xf32> -> tensor<4x3x3xf32>
  // Dynamic height and width: the output sizes are floor divisions of them.
  %10 = tgc.conv2d %img, %wi stride [2, 2] padding [1, 0] dilation [1, 1] groups = 1 : tensor<1x2x?x?xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x?x?xf32>
  %11 = tgc.max_pool2d %img kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] ceil_mode : tensor<1x2x?x?xf32> -> tensor<1x2x?x?xf32>
  %12 = tgc.avg_pool2d %img kernel [2, 2] stride [2, 2] padding [0, 0] : tensor<1x2x?x?xf32> -> tensor<1x2x?x?xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12 : tensor<?x6x5x9xf32>, tensor<?x3x9x9xf32>, tensor<2x7x7xf32>,
        tensor<?x4x5x5xf32>, tensor<?x4x5x5xf32>, tensor<?x4x7x7xf32>,
        tensor<?x4x5x5xf32>, tensor<?x4x4x4xf32>, tensor<?x4x5x5xf32>, tensor<4x3x3xf32>,
        tensor<1x3x?x?xf32>, tensor<1x2x?x?xf32>, tensor<1x2x?x?xf32>
}

func.func @attention(%q: tensor<2x?x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x6xf32>,
                     %m: tensor<?x?xi1>, %fm: tensor<2x1x?xf32>)
    -> (tensor<2x?x6xf32>, tensor<2x?x6xf32>, tensor<2x?x6xf32>, tensor<2x?x6xf32>) {
  %0 = tgc.scaled_dot_product_attention %q, %k, %v : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32> -> tensor<2x?x6xf32>
  %1 = tgc.scaled_dot_product_attention %q, %k, %v causal {scale = 0.5 : f64} : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32> -> tensor<2x?x6xf32>
  %2 = tgc.scaled_dot_product_attention %q, %k, %v mask(%m : tensor<?x?xi1>) : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32> -> tensor<2x?x6xf32>
  %3 = tgc.scaled_dot_product_attention %q, %k, %v mask(%fm : tensor<2x1x?xf32>) : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32> -> tensor<2x?x6xf32>
  return %0, %1, %2, %3 : tensor<2x?x6xf32>, tensor<2x?x6xf32>, tensor<2x?x6xf32>, tensor<2x?x6xf32>
}
