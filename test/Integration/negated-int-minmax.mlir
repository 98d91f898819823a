// Integer max and min with negated operands, against the reference
// interpreter. On the GPU, ptxas fused `max(max(acc, -a), -b)` into one
// three-input max and dropped the negations: the amax of -|x| returned the
// amax of |x| (GPU fuzzing, seeds 311910 and 500335; PtxasWorkarounds.cpp).
// utils/run-gpu-tests.py --cpu-tests runs this on the GPU too.

// RUN: tgc-run %s --calls 0=6x6x2,1=70,2=70,3=70 --calls 0=7x7x2,1=9,2=9,3=9 --check reference --json | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true

func.func @negated_minmax(%x: tensor<?x?x2xi32> {tgc.input_range = array<i64: -8, 9>},
                          %a: tensor<?xi32> {tgc.input_range = array<i64: -8, 9>},
                          %b: tensor<?xi32> {tgc.input_range = array<i64: -8, 9>},
                          %c: tensor<?xi64> {tgc.input_range = array<i64: -8, 9>})
    -> (tensor<i32>, tensor<i32>, tensor<?xi32>, tensor<i64>) {
  %n = tgc.neg %x : tensor<?x?x2xi32>
  %abs = tgc.abs %n : tensor<?x?x2xi32>
  %nabs = tgc.neg %abs : tensor<?x?x2xi32>
  %m = tgc.amax %nabs dims [0, 1, 2] : tensor<?x?x2xi32> -> tensor<i32>
  %nx = tgc.neg %x : tensor<?x?x2xi32>
  %mn = tgc.amax %nx dims [0, 1, 2] : tensor<?x?x2xi32> -> tensor<i32>
  %na = tgc.neg %a : tensor<?xi32>
  %t = tgc.minimum %b, %na : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>
  %u = tgc.minimum %a, %t : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>
  %nc = tgc.neg %c : tensor<?xi64>
  %cm = tgc.amin %nc dims [0] : tensor<?xi64> -> tensor<i64>
  return %m, %mn, %u, %cm : tensor<i32>, tensor<i32>, tensor<?xi32>, tensor<i64>
}
