// REQUIRES: cuda-gpu
// The ResNet-style head of test/Integration/model-pointwise.mlir on the
// GPU: pointwise convs as cuBLASLt GEMMs with the weight broadcast over
// the batch, global pools as row reductions; several batch sizes through
// one compile, on a stream and through CUDA graphs, against the reference
// interpreter.

// RUN: tgc-run %S/../model-pointwise.mlir --device cuda --calls 0=2x8x6x6 --calls 0=5x8x6x6 \
// RUN:   --check reference --json | FileCheck %s
// RUN: tgc-run %S/../model-pointwise.mlir --device cuda --calls 0=2x8x6x6 --calls 0=5x8x6x6 \
// RUN:   --check reference --json --cuda-graphs --fresh-inputs --repeat 3 | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "gemms": 3,
// CHECK: "reference_ok": true
