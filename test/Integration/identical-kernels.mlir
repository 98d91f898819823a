// Three identical layers (linear, layer norm, GELU) over a dynamic batch:
// tgc-outline-identical-kernels makes each kernel one function that the
// layers call with their own weights and activations, and the results
// still match the reference interpreter, for two batch sizes (one below
// and one above the size at which the kernels run in parallel).

// RUN: tgc-run %s --calls 0=4x64 --calls 0=300x64 --check reference --json | FileCheck %s
// CHECK: "reference_ok": true
// RUN: tgc-opt %s --tgc-cpu-pipeline | FileCheck %s --check-prefix=IR
// IR: llvm.call @layers__kernel0(
// IR: llvm.call @layers__kernel1(
// IR: llvm.call @layers__kernel0(
// IR: llvm.call @layers__kernel1(
// IR: llvm.call @layers__kernel0(
// IR: llvm.call @layers__kernel1(
// IR-DAG: llvm.func internal @layers__kernel0({{.*}}passthrough = ["noinline"]
// IR-DAG: llvm.func internal @layers__kernel1({{.*}}passthrough = ["noinline"]

func.func @layers(%x: tensor<?x64xf32>,
                  %w1: tensor<64x64xf32>, %b1: tensor<64xf32>, %g1: tensor<64xf32>, %h1: tensor<64xf32>,
                  %w2: tensor<64x64xf32>, %b2: tensor<64xf32>, %g2: tensor<64xf32>, %h2: tensor<64xf32>,
                  %w3: tensor<64x64xf32>, %b3: tensor<64xf32>, %g3: tensor<64xf32>, %h3: tensor<64xf32>) -> tensor<?x64xf32> {
  %a1 = tgc.linear %x, %w1, %b1 : tensor<?x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  %n1 = tgc.layer_norm %a1 weight(%g1 : tensor<64xf32>) bias(%h1 : tensor<64xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x64xf32>
  %y1 = tgc.gelu %n1 : tensor<?x64xf32>
  %a2 = tgc.linear %y1, %w2, %b2 : tensor<?x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  %n2 = tgc.layer_norm %a2 weight(%g2 : tensor<64xf32>) bias(%h2 : tensor<64xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x64xf32>
  %y2 = tgc.gelu %n2 : tensor<?x64xf32>
  %a3 = tgc.linear %y2, %w3, %b3 : tensor<?x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  %n3 = tgc.layer_norm %a3 weight(%g3 : tensor<64xf32>) bias(%h3 : tensor<64xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x64xf32>
  %y3 = tgc.gelu %n3 : tensor<?x64xf32>
  return %y3 : tensor<?x64xf32>
}
