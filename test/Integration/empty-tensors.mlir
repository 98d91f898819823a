// Tensors with no elements (a size-0 dim), compiled for the CPU and checked
// against the reference interpreter, with PyTorch's results: sum and norm
// over an empty dim are 0, mean and var NaN, a product with K = 0 is 0 (a
// linear layer's bias), softmax / layer norm of N x 0 are empty, padding an
// empty tensor is all padding, an empty concat input is skipped, attention
// over an empty key sequence is 0. These crashed the compiler (upstream
// tiling divides by the empty extent). The reductions without an identity
// (amax, argmax, ...) over an empty dim are verifier errors
// (test/Dialect/Tgc/invalid.mlir), as they are errors in PyTorch.

// RUN: tgc-run %s --entry reductions --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry contractions --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry rows --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry shapes --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry nn --check reference --json | FileCheck %s
// A dynamic size next to a size 0 (what tgc.compile(dynamic=True) makes of
// a 0 x 5 input): several sizes, one compile.
// RUN: tgc-run %s --entry mixed --calls 0=0x5,1=5 --calls 0=0x9,1=9 --check reference --json | FileCheck %s --check-prefix=MIXED
// A `?` that is 1 at run time broadcasts against 0 and against a larger
// size (the crash fuzzer found 1x1 vs 1x0 returning 1x1): specialized
// sizes are static in the types the lowering reads (tgc-specialize-types).
// RUN: tgc-run %s --entry broadcast_one --calls 0=1x1,1=1x0 --calls 0=1x1,1=1x5 \
// RUN:   --calls 0=1x5,1=1x1 --calls 0=1x0,1=1x1 --check reference --json | FileCheck %s --check-prefix=ONE
// ONE:         "calls": 4,
// ONE:         "reference_ok": true
// A computed size that is 1 for every allowed input (a slice of the first
// 2 rows with step 2, of a dynamic size >= 2) broadcasts the same way (the
// model-shaped fuzzer found it: garbage read past the 1-row buffer).
// RUN: tgc-run %s --entry derived_one --calls 0=5x4 --calls 0=9x4 --check reference --json \
// RUN:   | FileCheck %s --check-prefix=DERIVED
// DERIVED:     "compiles": 1,
// DERIVED:     "reference_ok": true
// CHECK:       "reference_ok": true
// MIXED:       "calls": 2,
// MIXED:       "compiles": 1,
// MIXED:       "reference_ok": true

// A linear layer over batch dims that hold a 0 and a dynamic size, its
// result reshaped (the crash fuzzer's seed 6001028: the batch collapse got
// a buffer type the memref verifier rejects, the expand back a division by
// zero that LLVM made code falling off the function's end; tgc-empty-reshapes),
// and a broadcast of a cast of a tensor with a static 0 (seed 6000555:
// upstream's tiling crashed once the cast's 0 folded into the sizes).
// RUN: tgc-run %s --entry empty_batch --calls 0=0x5x4x5,1=2x5 --calls 0=0x3x4x2,1=2x2 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=EMPTY
// RUN: tgc-run %s --entry empty_broadcast --calls 0=1x5x0 --calls 0=2x3x0 --check reference \
// RUN:   --json | FileCheck %s --check-prefix=EMPTY
// EMPTY:       "calls": 2,
// EMPTY:       "reference_ok": true
// RUN: tgc-run %s --entry empty_broadcast --calls 0=1x5x0 --device cuda --compile-only \
// RUN:   | FileCheck %s --check-prefix=GPU
// (On the GPU, @empty_batch stops with a clean error, a host read of
// device memory, as it did before; not a crash.)

// The values themselves (printed results are compared with PyTorch's).
// RUN: tgc-run %s --entry reductions --print-results | FileCheck %s --check-prefix=VALUES
// VALUES: result 0 (call 0): [0,  0,  0,  0]
// VALUES: result 1 (call 0): [nan,  nan,  nan,  nan]
// VALUES: result 2 (call 0): [nan,  nan,  nan,  nan]
// VALUES: result 3 (call 0): [0,  0,  0,  0]
// VALUES: result 4 (call 0): []
// VALUES: result 5 (call 0): [0,  0,  0]

// For CUDA: kernels and launch plans (launches of empty grids are skipped).
// RUN: tgc-run %s --entry reductions --device cuda --compile-only | FileCheck %s --check-prefix=GPU
// RUN: tgc-run %s --entry contractions --device cuda --compile-only | FileCheck %s --check-prefix=GPU
// RUN: tgc-run %s --entry rows --device cuda --compile-only | FileCheck %s --check-prefix=GPU
// RUN: tgc-run %s --entry shapes --device cuda --compile-only | FileCheck %s --check-prefix=GPU
// RUN: tgc-run %s --entry nn --device cuda --compile-only | FileCheck %s --check-prefix=GPU
// GPU: compiled @{{.*}} 1 time(s) for 1 call(s) on no device (compile only)

func.func @reductions(%a: tensor<0x4xf32>, %b: tensor<3x0xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<0xf32>, tensor<3xf32>, tensor<3x1xf32>, tensor<0xf32>) {
  %0 = tgc.sum %a dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  %1 = tgc.mean %a dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  %2 = tgc.var %a dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  %3 = tgc.norm %a dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  %4 = tgc.amax %a dims [1] : tensor<0x4xf32> -> tensor<0xf32>
  %5 = tgc.sum %b dims [1] : tensor<3x0xf32> -> tensor<3xf32>
  %6 = tgc.mean %b dims [1] keepdim : tensor<3x0xf32> -> tensor<3x1xf32>
  %7 = tgc.sum %a dims [1] : tensor<0x4xf32> -> tensor<0xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<0xf32>, tensor<3xf32>, tensor<3x1xf32>, tensor<0xf32>
}
func.func @contractions(%a: tensor<3x0xf32>, %b: tensor<0x2xf32>, %w: tensor<2x0xf32>, %bias: tensor<2xf32>, %c: tensor<2x3x0xf32>, %d: tensor<2x0x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3x5xf32>) {
  %0 = tgc.matmul %a, %b : tensor<3x0xf32>, tensor<0x2xf32> -> tensor<3x2xf32>
  %1 = tgc.linear %a, %w, %bias : tensor<3x0xf32>, tensor<2x0xf32>, tensor<2xf32> -> tensor<3x2xf32>
  %2 = tgc.bmm %c, %d : tensor<2x3x0xf32>, tensor<2x0x5xf32> -> tensor<2x3x5xf32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3x5xf32>
}
func.func @rows(%a: tensor<3x0xf32>, %w: tensor<0xf32>) -> (tensor<3x0xf32>, tensor<3x0xf32>, tensor<3x0xf32>) {
  %0 = tgc.softmax %a dim = 1 : tensor<3x0xf32>
  %1 = tgc.log_softmax %a dim = 1 : tensor<3x0xf32>
  %2 = tgc.layer_norm %a weight(%w : tensor<0xf32>) bias(%w : tensor<0xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<3x0xf32>
  return %0, %1, %2 : tensor<3x0xf32>, tensor<3x0xf32>, tensor<3x0xf32>
}
func.func @shapes(%a: tensor<0x2xf32>, %b: tensor<3x2xf32>, %c: tensor<0xf32>, %c2: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<3x2xf32>, tensor<0x2xf32>, tensor<0xf32>, tensor<0x2xf32>, tensor<0x1xf32>) {
  %0 = tgc.pad %a low [1, 0] high [1, 0] value 3.0 : f32 : tensor<0x2xf32> -> tensor<2x2xf32>
  %1 = tgc.concat %a, %b dim = 0 : (tensor<0x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %2 = tgc.exp %a : tensor<0x2xf32>
  %3:2 = tgc.topk %c k = 0 dim = 0 : tensor<0xf32> -> tensor<0xf32>, tensor<0xi64>
  %4 = tgc.add %a, %c2 : tensor<0x2xf32>, tensor<2xf32> -> tensor<0x2xf32>
  // A slice along a dim beside one of size 0 (extract_slice rejected the
  // offset 0 into that dim: the compile failed).
  %5 = tgc.slice %a dim = 1 start = 1 end = 2 step = 1 : tensor<0x2xf32> -> tensor<0x1xf32>
  return %0, %1, %2, %3#0, %4, %5 : tensor<2x2xf32>, tensor<3x2xf32>, tensor<0x2xf32>, tensor<0xf32>, tensor<0x2xf32>, tensor<0x1xf32>
}
func.func @nn(%x: tensor<1x0x4x4xf32>, %w: tensor<2x0x3x3xf32>, %b: tensor<2xf32>, %q: tensor<2x0x8xf32>, %k: tensor<2x5x8xf32>, %q2: tensor<2x3x8xf32>, %k0: tensor<2x0x8xf32>, %p: tensor<0x2x4x4xf32>, %ids: tensor<0x3xi64>, %e: tensor<10x4xf32>, %m: tensor<0x0xf64>) -> (tensor<1x2x2x2xf32>, tensor<2x0x8xf32>, tensor<2x3x8xf32>, tensor<0x2x2x2xf32>, tensor<0x3x4xf32>, tensor<0x0xf64>) {
  %0 = tgc.conv2d %x, %w bias(%b : tensor<2xf32>) stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<1x0x4x4xf32>, tensor<2x0x3x3xf32> -> tensor<1x2x2x2xf32>
  %1 = tgc.scaled_dot_product_attention %q, %k, %k : tensor<2x0x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32> -> tensor<2x0x8xf32>
  %2 = tgc.scaled_dot_product_attention %q2, %k0, %k0 : tensor<2x3x8xf32>, tensor<2x0x8xf32>, tensor<2x0x8xf32> -> tensor<2x3x8xf32>
  %3 = tgc.max_pool2d %p kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<0x2x4x4xf32> -> tensor<0x2x2x2xf32>
  %4 = tgc.embedding %e, %ids : tensor<10x4xf32>, tensor<0x3xi64> -> tensor<0x3x4xf32>
  %5 = tgc.cholesky %m : tensor<0x0xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<1x2x2x2xf32>, tensor<2x0x8xf32>, tensor<2x3x8xf32>, tensor<0x2x2x2xf32>, tensor<0x3x4xf32>, tensor<0x0xf64>
}
func.func @mixed(%a: tensor<0x?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<0x?xf32>, tensor<?xf32>, tensor<2x?xf32>) {
  %r = tgc.sum %a dims [0] : tensor<0x?xf32> -> tensor<?xf32>
  %e = tgc.exp %a : tensor<0x?xf32>
  %m = tgc.add %e, %b : tensor<0x?xf32>, tensor<?xf32> -> tensor<0x?xf32>
  %v = tgc.mean %a dims [0] : tensor<0x?xf32> -> tensor<?xf32>
  // All padding: the CPU's pad kernel reads its source only inside.
  %p = tgc.pad %a low [1, 1] high [1, 0] value 1.5 : f32 : tensor<0x?xf32> -> tensor<2x?xf32>
  return %r, %m, %v, %p : tensor<?xf32>, tensor<0x?xf32>, tensor<?xf32>, tensor<2x?xf32>
}

func.func @broadcast_one(%a: tensor<1x?xf32>, %b: tensor<1x?xf32>) -> (tensor<1x?xf32>, tensor<1x?xf32>) {
  %m = tgc.maximum %a, %b : tensor<1x?xf32>, tensor<1x?xf32> -> tensor<1x?xf32>
  %s = tgc.add %m, %b : tensor<1x?xf32>, tensor<1x?xf32> -> tensor<1x?xf32>
  return %m, %s : tensor<1x?xf32>, tensor<1x?xf32>
}

func.func @derived_one(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = tgc.slice %a dim = 0 start = 0 end = 2 step = 2 : tensor<?x4xf32> -> tensor<?x4xf32>
  %e = tgc.exp %s : tensor<?x4xf32>
  %r = tgc.add %a, %e : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @empty_batch(%a0: tensor<?x?x4x?xf64>, %a1: tensor<2x?xf64>, %a2: tensor<2xf64>) -> (tensor<1x4x1x?xf64>, tensor<?x?x4x2xf64>) {
  %v1 = tgc.linear %a0, %a1, %a2 : tensor<?x?x4x?xf64>, tensor<2x?xf64>, tensor<2xf64> -> tensor<?x?x4x2xf64>
  %h = tgc.constant dense<0.5> : tensor<f64>
  %v3 = tgc.mul %v1, %h : tensor<?x?x4x2xf64>, tensor<f64> -> tensor<?x?x4x2xf64>
  %v7 = tgc.reshape %v3 : tensor<?x?x4x2xf64> -> tensor<1x4x1x?xf64>
  %v6 = tgc.neg %v3 : tensor<?x?x4x2xf64>
  return %v7, %v6 : tensor<1x4x1x?xf64>, tensor<?x?x4x2xf64>
}

func.func @empty_broadcast(%a: tensor<?x?x?xf32>) -> tensor<3x?x?x?xf32> {
  %s = tgc.slice %a dim = 0 start = 0 end = 2 step = 1 : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %e = tgc.expand %s : tensor<?x?x?xf32> -> tensor<3x?x?x?xf32>
  return %e : tensor<3x?x?x?xf32>
}
