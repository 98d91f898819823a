// A softmax -> layer_norm -> GELU chain with a residual and a row sum,
// compiled for the CPU (fused) against the reference interpreter; one
// compile for three batch sizes.

// RUN: tgc-run %s --calls 0=2x64 --calls 0=7x64 --calls 0=33x64 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 3,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

// Divisions of the softmax by its row sum as IEEE divisions (not one
// reciprocal per row and products, the default).
// RUN: tgc-run %s --calls 0=7x64 --exact-division --check reference | FileCheck %s --check-prefix=EXACT
// EXACT: reference check: ok

func.func @chain(%x: tensor<?x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>)
    -> (tensor<?x64xf32>, tensor<?xf32>) {
  %s = tgc.softmax %x dim = 1 : tensor<?x64xf32>
  %n = tgc.layer_norm %s weight(%w : tensor<64xf32>) bias(%b : tensor<64xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x64xf32>
  %g = tgc.gelu %n approximate = tanh : tensor<?x64xf32>
  %r = tgc.add %g, %x : tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
  %t = tgc.sum %r dims [1] : tensor<?x64xf32> -> tensor<?xf32>
  return %r, %t : tensor<?x64xf32>, tensor<?xf32>
}
