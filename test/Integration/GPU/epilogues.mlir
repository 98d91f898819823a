// REQUIRES: cuda-gpu
// GEMM consumers as cuBLASLt epilogues, against the reference interpreter:
// bias, bias+ReLU and bias+tanh-GELU in f32, bf16 and f16; the rounding of
// a bf16 product; exact GELU split into the bias epilogue and an in-place
// kernel; a linear layer over 3-d input; a product with a second reader
// (no epilogue). Dynamic batch sizes, and CUDA graphs with fresh inputs.

// RUN: tgc-run %s --entry relu_f32 --device cuda --calls 0=5x64 --calls 0=130x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOKERNEL
// RUN: tgc-run %s --entry relu_f32 --device cuda --calls 0=5x64 --calls 0=130x64 --check reference --json \
// RUN:   --cuda-graphs --fresh-inputs --repeat 3 | FileCheck %s
// RUN: tgc-run %s --entry relu_bf16 --device cuda --calls 0=7x64 --calls 0=64x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOKERNEL
// RUN: tgc-run %s --entry gelu_tanh_f32 --device cuda --calls 0=9x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOKERNEL
// RUN: tgc-run %s --entry gelu_tanh_bf16 --device cuda --calls 0=9x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOKERNEL
// RUN: tgc-run %s --entry bias_f16 --device cuda --calls 0=33x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOKERNEL
// RUN: tgc-run %s --entry matmul_bf16 --device cuda --calls 0=17x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOKERNEL
// RUN: tgc-run %s --entry gelu_exact_bf16 --device cuda --calls 0=12x64 --calls 0=3x64 --check reference --json \
// RUN:   --cuda-graphs --fresh-inputs --repeat 2 | FileCheck %s --check-prefixes=CHECK,ONEKERNEL
// RUN: tgc-run %s --entry linear_3d --device cuda --calls 0=2x5x64 --calls 0=3x11x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NOKERNEL
// RUN: tgc-run %s --entry two_readers --device cuda --calls 0=6x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefixes=CHECK,ONEKERNEL
// CHECK: "compiles": 1,
// CHECK: "gemms": 1,
// NOKERNEL: "kernels": 0,
// ONEKERNEL: "kernels": 1,
// CHECK: "reference_ok": true

func.func @relu_f32(%x: tensor<?x64xf32>, %w: tensor<48x64xf32>, %b: tensor<48xf32>) -> tensor<?x48xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<48x64xf32>, tensor<48xf32> -> tensor<?x48xf32>
  %r = tgc.relu %h : tensor<?x48xf32>
  return %r : tensor<?x48xf32>
}

func.func @relu_bf16(%x: tensor<?x64xbf16>, %w: tensor<48x64xbf16>, %b: tensor<48xbf16>) -> tensor<?x48xbf16> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xbf16>, tensor<48x64xbf16>, tensor<48xbf16> -> tensor<?x48xbf16>
  %r = tgc.relu %h : tensor<?x48xbf16>
  return %r : tensor<?x48xbf16>
}

func.func @gelu_tanh_f32(%x: tensor<?x64xf32>, %w: tensor<48x64xf32>, %b: tensor<48xf32>) -> tensor<?x48xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<48x64xf32>, tensor<48xf32> -> tensor<?x48xf32>
  %r = tgc.gelu %h approximate = "tanh" : tensor<?x48xf32>
  return %r : tensor<?x48xf32>
}

func.func @gelu_tanh_bf16(%x: tensor<?x64xbf16>, %w: tensor<48x64xbf16>, %b: tensor<48xbf16>) -> tensor<?x48xbf16> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xbf16>, tensor<48x64xbf16>, tensor<48xbf16> -> tensor<?x48xbf16>
  %r = tgc.gelu %h approximate = "tanh" : tensor<?x48xbf16>
  return %r : tensor<?x48xbf16>
}

func.func @bias_f16(%x: tensor<?x64xf16>, %w: tensor<48x64xf16>, %b: tensor<48xf16>) -> tensor<?x48xf16> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf16>, tensor<48x64xf16>, tensor<48xf16> -> tensor<?x48xf16>
  return %h : tensor<?x48xf16>
}

func.func @matmul_bf16(%x: tensor<?x64xbf16>, %w: tensor<64x40xbf16>) -> tensor<?x40xbf16> {
  %h = tgc.matmul %x, %w : tensor<?x64xbf16>, tensor<64x40xbf16> -> tensor<?x40xbf16>
  return %h : tensor<?x40xbf16>
}

func.func @gelu_exact_bf16(%x: tensor<?x64xbf16>, %w: tensor<48x64xbf16>, %b: tensor<48xbf16>) -> tensor<?x48xbf16> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xbf16>, tensor<48x64xbf16>, tensor<48xbf16> -> tensor<?x48xbf16>
  %g = tgc.gelu %h : tensor<?x48xbf16>
  return %g : tensor<?x48xbf16>
}

func.func @linear_3d(%x: tensor<?x?x64xf32>, %w: tensor<48x64xf32>, %b: tensor<48xf32>) -> tensor<?x?x48xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x?x64xf32>, tensor<48x64xf32>, tensor<48xf32> -> tensor<?x?x48xf32>
  %r = tgc.relu %h : tensor<?x?x48xf32>
  return %r : tensor<?x?x48xf32>
}

func.func @two_readers(%x: tensor<?x64xf32>, %w: tensor<64x48xf32>) -> (tensor<?x48xf32>, tensor<?x48xf32>) {
  %h = tgc.matmul %x, %w : tensor<?x64xf32>, tensor<64x48xf32> -> tensor<?x48xf32>
  %r = tgc.relu %h : tensor<?x48xf32>
  return %h, %r : tensor<?x48xf32>, tensor<?x48xf32>
}
