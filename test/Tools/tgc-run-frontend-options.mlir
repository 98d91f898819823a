// tgc-run takes the frontend options of tgc-cpu-pipeline and
// tgc-gpu-pipeline (issue 23): --specialize-zero-one and --duck-sizing.
//
// RUN: tgc-run %s --calls 0=8x4,1=8x4 --calls 0=1x4,1=1x4 | FileCheck %s --check-prefix=ZERO-ONE
// RUN: tgc-run %s --calls 0=8x4,1=8x4 --calls 0=1x4,1=1x4 --specialize-zero-one=false \
// RUN:   | FileCheck %s --check-prefix=NO-ZERO-ONE
// ZERO-ONE:        compiled @f 2 time(s) for 2 call(s)
// ZERO-ONE:        s0 >= 2
// NO-ZERO-ONE:     compiled @f 1 time(s) for 2 call(s)
// NO-ZERO-ONE-NOT: s0 >= 2
//
// RUN: tgc-run %s --shape 0=8x4 --shape 1=8x4 | FileCheck %s --check-prefix=DUCK
// RUN: tgc-run %s --shape 0=8x4 --shape 1=8x4 --duck-sizing=false | FileCheck %s --check-prefix=NO-DUCK
// DUCK:    (duck sizing: arg 1 dim 0 had the same example size as s0)
// NO-DUCK: s1 == s0 (tgc.add operands must broadcast
//
// The GPU compiler gets them too (no GPU needed).
// RUN: tgc-run %s --shape 0=8x4 --shape 1=8x4 --duck-sizing=false --device cuda --compile-only \
// RUN:   --ptx-only | FileCheck %s --check-prefix=NO-DUCK

func.func @f(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = tgc.add %x, %y : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
