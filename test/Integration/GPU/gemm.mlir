// REQUIRES: cuda-gpu
// Matmul, bmm and linear through cuBLASLt (f32, bf16), with the bias and
// GELU epilogues as kernels of their own, against the reference
// interpreter; the MLP example for several batch sizes, through CUDA graphs
// too.

// RUN: tgc-run %s --entry mm --device cuda --calls 0=5x12 --calls 0=100x12 --check reference --json \
// RUN:   | grep -q '"gemms": 1,'
// RUN: tgc-run %s --entry bmm --device cuda --calls 0=3x7x4,1=3x4x5 --check reference --json \
// RUN:   | grep -q '"reference_ok": true'
// RUN: tgc-run %s --entry gelu_linear --device cuda --calls 0=64x32 --check reference --json \
// RUN:   | grep -q '"reference_ok": true'
// RUN: tgc-run %tgc_src_root/examples/mlp.mlir --device cuda --calls 0=8x64 --calls 0=32x64 --calls 0=3x64 \
// RUN:   --check reference --json --cuda-graphs --fresh-inputs --repeat 3 | grep -q '"reference_ok": true'

func.func @mm(%a: tensor<?x12xf32>, %b: tensor<12x7xf32>) -> tensor<?x7xf32> {
  %0 = tgc.matmul %a, %b : tensor<?x12xf32>, tensor<12x7xf32> -> tensor<?x7xf32>
  return %0 : tensor<?x7xf32>
}

func.func @bmm(%x: tensor<?x7x4xf32>, %y: tensor<?x4x5xf32>) -> tensor<?x7x5xf32> {
  %0 = tgc.bmm %x, %y : tensor<?x7x4xf32>, tensor<?x4x5xf32> -> tensor<?x7x5xf32>
  return %0 : tensor<?x7x5xf32>
}

func.func @gelu_linear(%x: tensor<?x32xbf16>, %w: tensor<48x32xbf16>, %b: tensor<48xbf16>) -> tensor<?x48xbf16> {
  %h = tgc.linear %x, %w, %b : tensor<?x32xbf16>, tensor<48x32xbf16>, tensor<48xbf16> -> tensor<?x48xbf16>
  %g = tgc.gelu %h : tensor<?x48xbf16>
  return %g : tensor<?x48xbf16>
}
