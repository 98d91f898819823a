// Functions named like the libm and libc symbols their code calls, run
// through tgc-run's JIT, which gives them the private symbol
// `tgc_entry_<name>`: `exp` and `log` on f64 (lowered to calls of libm's
// `exp` and `log`), `tanh` on f64, `cosf` on f32, `memcpy` (a concat) and
// `malloc` (an intermediate buffer). They used to crash (the code called
// the function itself), fail to verify or fail to link. For objects the
// names are the interface and are rejected instead
// (test/Transforms/check-symbol-names.mlir).

// RUN: tgc-run %s --entry exp --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry log --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry tanh --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry cosf --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry memcpy --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry malloc --check reference --json | FileCheck %s
// CHECK: "reference_ok": true

// RUN: not tgc-opt %s --tgc-cpu-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OBJECT
// OBJECT: error: function @exp has a reserved name

func.func @exp(%a: tensor<4xf64>) -> tensor<4xf64> {
  %e = tgc.exp %a : tensor<4xf64>
  %c = tgc.constant dense<2.0> : tensor<f64>
  %r = tgc.mul %e, %c : tensor<4xf64>, tensor<f64> -> tensor<4xf64>
  return %r : tensor<4xf64>
}

func.func @log(%a: tensor<4xf64> {tgc.input_range = array<f64: 0.5, 4.0>}) -> tensor<4xf64> {
  %e = tgc.log %a : tensor<4xf64>
  return %e : tensor<4xf64>
}

func.func @tanh(%a: tensor<4xf64>) -> tensor<4xf64> {
  %e = tgc.tanh %a : tensor<4xf64>
  return %e : tensor<4xf64>
}

func.func @cosf(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tgc.cos %a : tensor<4xf32>
  return %e : tensor<4xf32>
}

func.func @memcpy(%a: tensor<4x3xf32>, %b: tensor<2x3xf32>) -> tensor<6x3xf32> {
  %c = tgc.concat %a, %b dim = 0 : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
  return %c : tensor<6x3xf32>
}

func.func @malloc(%a: tensor<300x300xf32>) -> tensor<300xf32> {
  %e = tgc.exp %a : tensor<300x300xf32>
  %s = tgc.softmax %e dim = 0 : tensor<300x300xf32>
  %r = tgc.sum %s dims [1] : tensor<300x300xf32> -> tensor<300xf32>
  return %r : tensor<300xf32>
}
