// tgc-run's ARG (--shape, --calls) is an index or the argument's name in
// the source (issue 23: the help said so, names were refused).
//
// RUN: tgc-run %s --shape x=3x4 --calls x=5x4 --check reference --json | FileCheck %s
// RUN: not tgc-run %s --shape z=3x4 2>&1 | FileCheck %s --check-prefix=ERR
// CHECK: "reference_ok": true
// ERR: --shape: no argument 'z' in @f (its arguments: 0 (x), 1 (bias))

func.func @f(%x: tensor<?x4xf32>, %bias: tensor<4xf32>) -> tensor<?x4xf32> {
  %r = tgc.add %x, %bias : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
