// tgc.philox_uniform against the reference interpreter and against
// Random123's known answer: Philox4x32-10 of counter 0 under key 0 is
// 0x6627e8d5 first, so element 0 of seed 0, stream 0 is
// (0x6627e8d5 >> 8) / 2^24 = 0.39904642. The kernels compute the same
// numbers as the interpreter for any seed, stream and size; over static
// sizes (a training graph's) a dropout's mask and scale fuse with them
// into one kernel. (With a `?` size the op takes an index operand, which a
// fusion group cannot: a kernel of its own.)

// RUN: tgc-run %s --entry known_answer --print-results --check reference 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KAT
// KAT: result 0 (call 0): [0.39904642,
// KAT: reference check: ok (max abs err 0, max rel err 0)
// RUN: tgc-run %s --entry dropout --check reference --json | FileCheck %s
// CHECK: "kernels": 1,
// CHECK: "reference_ok": true
// RUN: tgc-run %s --entry uniform --calls 0=5x64 --calls 0=33x64 --check reference --json \
// RUN:   | FileCheck %s --check-prefix=DYN
// DYN: "compiles": 1,
// DYN: "reference_ok": true
// The GPU path compiles it too (no GPU needed).
// RUN: tgc-run %s --entry dropout --device cuda --compile-only --ptx-only \
// RUN:   --emit-plan - | FileCheck %s --check-prefix=GPU
// GPU: kernel dropout_elementwise_0
// GPU-NOT: kernel dropout_

func.func @known_answer() -> tensor<4xf32> {
  %seed = tgc.constant dense<0> : tensor<i64>
  %u = tgc.philox_uniform %seed stream = 0 : tensor<i64> -> tensor<4xf32>
  return %u : tensor<4xf32>
}

func.func @dropout(%x: tensor<8x64xf32>, %seed: tensor<i64>) -> tensor<8x64xf32> {
  %u = tgc.philox_uniform %seed stream = 3 : tensor<i64> -> tensor<8x64xf32>
  %p = tgc.constant dense<0.9> : tensor<f32>
  %keep = tgc.cmp lt, %u, %p : tensor<8x64xf32>, tensor<f32> -> tensor<8x64xi1>
  %scale = tgc.constant dense<1.1111112> : tensor<f32>
  %scaled = tgc.mul %x, %scale : tensor<8x64xf32>, tensor<f32> -> tensor<8x64xf32>
  %zero = tgc.constant dense<0.0> : tensor<f32>
  %y = tgc.where %keep, %scaled, %zero : tensor<8x64xi1>, tensor<8x64xf32>, tensor<f32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

func.func @uniform(%x: tensor<?x64xf32>, %seed: tensor<i64>) -> tensor<?x64xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %u = tgc.philox_uniform %seed stream = 1 [%n] : tensor<i64> -> tensor<?x64xbf16>
  return %u : tensor<?x64xbf16>
}
