// The "entropy" scorer -(softmax(x) * log(softmax(x) + 1e-8)).sum(-1)
// with both sizes of x dynamic, compiled for the CPU against the reference
// interpreter: one compile serves every shape, including rows longer than
// a vector and a batch of 2. Sizes 0 and 1 are specialized (0/1
// specialization): an empty batch, a batch of one and rows of one element
// each get their own compile, with a failed guard as the reason; the last
// size reuses the first compile.

// RUN: tgc-run %s --calls 0=4x10 --calls 0=16x1000 --calls 0=2x7 --calls 0=3x3 \
// RUN:   --check reference --json | FileCheck %s
// CHECK:      "calls": 4,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

// RUN: tgc-run %s --calls 0=4x10 --calls 0=1x10 --calls 0=0x10 --calls 0=3x1 --calls 0=5x12 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=ZERO-ONE
// ZERO-ONE:      "calls": 5,
// ZERO-ONE:      "compiles": 4,
// ZERO-ONE:      "recompile_reasons": [
// ZERO-ONE-NEXT:   "recompiling entropy: guard {{[0-9]+}} failed: s0 >= 2 {{.*}}: s0 = 1",
// ZERO-ONE-NEXT:   "recompiling entropy: guard {{[0-9]+}} failed: arg0_dim0 == 1 {{.*}}: arg0_dim0 = 0; 1 other specialization also failed",
// ZERO-ONE-NEXT:   "recompiling entropy: guard {{[0-9]+}} failed: {{.*}}: arg0_dim0 = 3; 2 other specializations also failed"
// ZERO-ONE-NEXT: ],
// ZERO-ONE-NEXT: "reference_ok": true

func.func @entropy(%x: tensor<?x?xf32> {tgc.input_range = array<f64: -4.0, 4.0>})
    -> tensor<?xf32> {
  %p = tgc.softmax %x dim = 1 : tensor<?x?xf32>
  %eps = tgc.constant dense<1.0e-08> : tensor<f32>
  %q = tgc.add %p, %eps : tensor<?x?xf32>, tensor<f32> -> tensor<?x?xf32>
  %l = tgc.log %q : tensor<?x?xf32>
  %m = tgc.mul %p, %l : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %s = tgc.sum %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %e = tgc.neg %s : tensor<?xf32>
  return %e : tensor<?xf32>
}
