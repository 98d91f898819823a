// tgc-run's ARG (--shape, --calls) is an index or a name of the argument:
// its name in the source, its name location (`loc("x")`, as the Python
// tracer writes arguments) or its `tgc.name` (issue 23: the help said so,
// names were refused). An unknown name lists the names there are.
//
// RUN: tgc-run %s --entry f --shape x=3x4 --calls x=5x4 --check reference --json | FileCheck %s
// RUN: not tgc-run %s --entry f --shape z=3x4 2>&1 | FileCheck %s --check-prefix=ERR
// CHECK: "reference_ok": true
// ERR: --shape: no argument 'z' in @f (its arguments: 0 (x), 1 (bias))
//
// RUN: tgc-run %s --entry traced --shape x=3x4 --shape bias=4 --check reference | FileCheck %s --check-prefix=LOC
// RUN: tgc-run %s --entry traced --calls x=3x4,bias=4 --calls x=6x4,1=4 | FileCheck %s --check-prefix=CALLS
// RUN: not tgc-run %s --entry traced --shape y=3x4 2>&1 | FileCheck %s --check-prefix=LOC-ERR
// RUN: not tgc-run %s --entry traced --calls x=3x4,w=4 2>&1 | FileCheck %s --check-prefix=CALLS-ERR
// RUN: not tgc-run %s --entry traced 2>&1 | FileCheck %s --check-prefix=UNSIZED
// LOC: call 0 (3x4, 4): compiled
// LOC: reference check: ok
// CALLS: call 0 (3x4, 4): compiled
// CALLS: call 1 (6x4, 4): cached
// LOC-ERR: tgc-run: error: --shape: no argument 'y' in @traced (its arguments: 0 (x), 1 (bias))
// CALLS-ERR: tgc-run: error: --calls: no argument 'w' in @traced (its arguments: 0 (x), 1 (bias))
// UNSIZED: give them with --shape x=...

func.func @f(%x: tensor<?x4xf32>, %bias: tensor<4xf32>) -> tensor<?x4xf32> {
  %r = tgc.add %x, %bias : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @traced(%arg0: tensor<?x4xf32> loc("x"),
                  %arg1: tensor<?xf32> {tgc.name = "bias"}) -> tensor<?x4xf32> {
  %r = tgc.add %arg0, %arg1 : tensor<?x4xf32>, tensor<?xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
