// An i32 pow whose exponent is clamp(-|a|, -1, 3), against the reference
// interpreter (PyTorch's integer pow: a negative exponent gives 0 except
// for bases 1 and -1). On the GPU, LLVM folds the exponent's sign test into
// `-|a| > -1` and ptxas dropped that negation, so every element took the
// non-negative branch (GPU fuzzing, seed 924138, reduced by
// utils/reduce-graph.py; PtxasWorkarounds.cpp now hides it).
// utils/run-gpu-tests.py --cpu-tests runs this on the GPU too.

// RUN: tgc-run %s --calls 0=64x100,1=64x100 --calls 0=3x7,1=3x7 --check reference --json | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true

func.func @fuzz(%a: tensor<?x?xi32> {tgc.input_range = array<i64: -8, 9>},
                %b: tensor<?x?xi32> {tgc.input_range = array<i64: -8, 9>}) -> tensor<?x?xi32> {
  %abs = tgc.abs %a : tensor<?x?xi32>
  %neg = tgc.neg %abs : tensor<?x?xi32>
  %e = tgc.clamp %neg min -1.0 max 3.0 : tensor<?x?xi32>
  %p = tgc.pow %b, %e : tensor<?x?xi32>, tensor<?x?xi32> -> tensor<?x?xi32>
  %r = tgc.neg %p : tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}
