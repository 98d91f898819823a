// A ResNet-style head: 3x3 conv, ReLU, pointwise (1x1) convs with bias, a
// residual add, then global max and average pooling and a linear layer.
// tgc-decompose turns the pointwise convs into matmuls and the global pools
// into reductions; results match the reference interpreter for several
// batch sizes through one compile, and are the same as without the
// rewrites.

// RUN: tgc-run %s --calls 0=2x8x6x6 --calls 0=5x8x6x6 --calls 0=3x8x6x6 \
// RUN:   --check reference --json | FileCheck %s
// RUN: tgc-run %s --calls 0=2x8x6x6 --check reference --json --no-decompose \
// RUN:   | FileCheck %s --check-prefix=KEEP
// CHECK: "calls": 3,
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true
// KEEP: "reference_ok": true

// Every convolution is a GEMM on the GPU: the pointwise ones rewritten as
// matmuls, the 3x3 one through im2col, and without tgc-decompose the
// pointwise ones through im2col too (compiled without a device here;
// test/Integration/GPU/pointwise.mlir runs them).
// RUN: tgc-run %s --device cuda --compile-only --ptx-only --calls 0=2x8x6x6 --json \
// RUN:   | FileCheck %s --check-prefix=CUDA
// RUN: tgc-run %s --device cuda --compile-only --ptx-only --calls 0=2x8x6x6 --json --no-decompose \
// RUN:   | FileCheck %s --check-prefix=CUDA-KEEP
// CUDA: "gemms": 4,
// CUDA-KEEP: "gemms": 4,

func.func @head(%x: tensor<?x8x6x6xf32>, %w3: tensor<8x8x3x3xf32>, %wa: tensor<16x8x1x1xf32>,
                %ba: tensor<16xf32>, %wb: tensor<8x16x1x1xf32>, %bb: tensor<8xf32>,
                %wl: tensor<10x16xf32>, %bl: tensor<10xf32>) -> tensor<?x10xf32> {
  %c = tgc.conv2d %x, %w3 stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<?x8x6x6xf32>
  %r = tgc.relu %c : tensor<?x8x6x6xf32>
  %a = tgc.conv2d %r, %wa bias(%ba : tensor<16xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<?x8x6x6xf32>, tensor<16x8x1x1xf32> -> tensor<?x16x6x6xf32>
  %ar = tgc.relu %a : tensor<?x16x6x6xf32>
  %b = tgc.conv2d %ar, %wb bias(%bb : tensor<8xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<?x16x6x6xf32>, tensor<8x16x1x1xf32> -> tensor<?x8x6x6xf32>
  %s = tgc.add %b, %x : tensor<?x8x6x6xf32>
  %sr = tgc.relu %s : tensor<?x8x6x6xf32>
  %mx = tgc.max_pool2d %sr kernel [6, 6] stride [6, 6] padding [0, 0] dilation [1, 1] : tensor<?x8x6x6xf32> -> tensor<?x8x1x1xf32>
  %av = tgc.avg_pool2d %sr kernel [6, 6] stride [6, 6] padding [0, 0] : tensor<?x8x6x6xf32> -> tensor<?x8x1x1xf32>
  %cat = tgc.concat %mx, %av dim = 1 : (tensor<?x8x1x1xf32>, tensor<?x8x1x1xf32>) -> tensor<?x16x1x1xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %cat, %c0 : tensor<?x16x1x1xf32>
  %flat = tgc.reshape %cat [%n] : tensor<?x16x1x1xf32> -> tensor<?x16xf32>
  %y = tgc.linear %flat, %wl, %bl : tensor<?x16xf32>, tensor<10x16xf32>, tensor<10xf32> -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}
