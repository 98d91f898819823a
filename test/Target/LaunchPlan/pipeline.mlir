// RUN: tgc-opt %s --tgc-gpu-pipeline -split-input-file | tgc-translate --tgc-to-launch-plan -split-input-file | FileCheck %s

// tgc-gpu-pipeline's output through --tgc-to-launch-plan: the plan text
// `tgc-run --emit-plan` writes (lib/Runtime/GpuPlanParse.cpp reads it).

// A linear layer: a cuBLASLt GEMM with B transposed and the bias as its
// epilogue, then softmax as one row kernel over the arena.
// CHECK-LABEL: function linear
// CHECK: result 0 f32 2
// CHECK: guard contiguous 0
// CHECK: arena n{{[0-9]+}}
// CHECK: kernel linear_warp_rows_0
// CHECK: gemm f32 out f32 {{.*}} transa 0 transb 1 {{.*}} bias b{{[0-9]+}} epilogue bias
// CHECK: launch k0 grid
func.func @linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<?x32xf32>
  %r = tgc.softmax %h dim = 1 : tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// A residual after a linear layer (`x + linear(a)`): cuBLASLt adds x as
// its C operand (beta = 1) with the bias epilogue; no kernel.
// CHECK-LABEL: function linear_residual
// CHECK-NOT: kernel
// CHECK: gemm f32 out f32 {{.*}} transa 0 transb 1 {{.*}} bias b{{[0-9]+}} residual b{{[0-9]+}} epilogue bias strides
// CHECK-NOT: launch
func.func @linear_residual(%a: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>, %x: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %h = tgc.linear %a, %w, %b : tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<?x32xf32>
  %r = tgc.add %x, %h : tensor<?x32xf32>, tensor<?x32xf32> -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// A flat kernel's 16-byte vectors become alignment guards on its argument
// buffers; the broadcast check of the operands' sizes is a guard.
// CHECK-LABEL: function add
// CHECK: guard equal n1 n0 "s1 == s0"
// CHECK: guard aligned 0 16 "arg0 aligned to 16 bytes" "kernel add_elementwise_0 reads and writes arg 0 with 16-byte vector accesses"
// CHECK: guard aligned 1 16
// CHECK: kernel add_elementwise_0
// CHECK: launch k0 grid
func.func @add(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %a = tgc.add %x, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %a : tensor<?xf32>
}
