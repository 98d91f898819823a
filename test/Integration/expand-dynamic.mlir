// A broadcast to a dynamic size (tgc.expand with a size operand) next to
// fusable elementwise ops: the expand stays a kernel of its own (a fusion
// group's inputs are tensors) and the rest fuses; fused and unfused
// results match the reference.

// RUN: tgc-run %s --calls 0=3x6 --calls 0=40x6 --check reference --json | FileCheck %s
// RUN: tgc-run %s --calls 0=3x6 --no-fuse --check reference --json | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true
func.func @expand_add(%x: tensor<?x6xf32>, %r: tensor<1x6xf32>) -> tensor<?x6xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6xf32>
  %e = tgc.expand %r [%n] : tensor<1x6xf32> -> tensor<?x6xf32>
  %y = tgc.add %e, %x : tensor<?x6xf32>, tensor<?x6xf32> -> tensor<?x6xf32>
  %z = tgc.exp %y : tensor<?x6xf32>
  return %z : tensor<?x6xf32>
}
