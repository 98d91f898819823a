// REQUIRES: cuda-gpu
// Conditions the kernels compute on the device (a gather's indices in
// range, no integer division by zero): the plan copies each flag back in
// stream order and a call whose flag is false fails with the op's message
// and location once it has run; calls that pass are checked against the
// reference interpreter, on a stream and through CUDA graphs.

// RUN: tgc-run %s --entry gather --device cuda --calls 0=5x8,1=5x3 --calls 0=300x8,1=40x3 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=OK
// RUN: tgc-run %s --entry gather --device cuda --calls 0=5x8,1=5x3 --calls 0=300x8,1=40x3 \
// RUN:   --check reference --json --cuda-graphs --fresh-inputs --repeat 3 | FileCheck %s --check-prefix=OK
// RUN: not tgc-run %s --entry gather_bad --device cuda --calls 0=5x8,1=5x3 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not tgc-run %s --entry gather_bad --device cuda --calls 0=5x8,1=5x3 --cuda-graphs 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// RUN: tgc-run %s --entry divide --device cuda --calls 0=7x9,1=9 --check reference --json \
// RUN:   | FileCheck %s --check-prefix=OK
// RUN: not tgc-run %s --entry divide_by_zero --device cuda --calls 0=7x9,1=9 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ZERO
// OK: "reference_ok": true
// RANGE: tgc.gather: index out of range at {{.*}}checks.mlir:{{[0-9]+}}:8 (checked on the device; the call's results are not valid)
// ZERO: tgc.div: integer division by zero at {{.*}}checks.mlir:{{[0-9]+}}:8 (checked on the device

func.func @gather(%x: tensor<?x8xf32>, %i: tensor<?x3xi64> {tgc.input_range = array<i64: 0, 8>}) -> tensor<?x3xf32> {
  %0 = tgc.gather %x, %i dim = 1 : tensor<?x8xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

func.func @gather_bad(%x: tensor<?x8xf32>, %i: tensor<?x3xi64> {tgc.input_range = array<i64: 100, 200>}) -> tensor<?x3xf32> {
  %0 = tgc.gather %x, %i dim = 1 : tensor<?x8xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

func.func @divide(%x: tensor<?x9xi64>, %y: tensor<9xi64> {tgc.input_range = array<i64: 1, 20>}) -> tensor<?x9xi64> {
  %0 = tgc.div %x, %y rounding = floor : tensor<?x9xi64>, tensor<9xi64> -> tensor<?x9xi64>
  return %0 : tensor<?x9xi64>
}

func.func @divide_by_zero(%x: tensor<?x9xi64>, %y: tensor<9xi64> {tgc.input_range = array<i64: 0, 1>}) -> tensor<?x9xi64> {
  %0 = tgc.div %x, %y rounding = floor : tensor<?x9xi64>, tensor<9xi64> -> tensor<?x9xi64>
  return %0 : tensor<?x9xi64>
}
