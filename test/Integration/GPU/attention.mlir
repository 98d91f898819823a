// REQUIRES: cuda-gpu
// Multi-head attention as the Python frontend records it (packed QKV
// projection, heads as slices of it, 4-d batched matmuls through
// cuBLASLt), dynamic batch and sequence length, against the reference
// interpreter: on a stream, and through CUDA graphs with fresh input
// pointers on every call.

// RUN: tgc-run %S/../model-multihead.mlir --device cuda --calls 0=2x5x32 --calls 0=3x12x32 \
// RUN:   --calls 0=4x2x32 --check reference --json | FileCheck %s
// RUN: tgc-run %S/../model-multihead.mlir --device cuda --calls 0=2x5x32 --calls 0=3x12x32 \
// RUN:   --check reference --json --cuda-graphs --fresh-inputs --repeat 3 | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "gemms": 4,
// CHECK: "reference_ok": true
