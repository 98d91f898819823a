// A function may return an argument, a view of one (a reshape), or a
// constant: bufferization makes each a copy the caller owns
// (bufferization.clone, lowered to an allocation and a copy), so the
// results are right and freeing them never frees the caller's input.

// RUN: tgc-run %s --calls 0=3x4 --calls 0=7x4 --check reference --json | FileCheck %s
// CHECK: "calls": 2,
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true
func.func @returns(%x: tensor<?x4xf32>) -> (tensor<?xf32>, tensor<?x4xf32>, tensor<2x2xi64>) {
  %r = tgc.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  %c = tgc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  return %r, %x, %c : tensor<?xf32>, tensor<?x4xf32>, tensor<2x2xi64>
}
