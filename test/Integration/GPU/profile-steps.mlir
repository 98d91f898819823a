// tgc-run --profile: each launch-plan step with its strategy, launch and
// the bytes it reads and writes (each buffer once; read and written in
// place, twice). --compile-only needs no GPU and prints no times; on a GPU
// the same table gets each step's time, bandwidth and share of the
// memory's peak (GPU figures: docs/explain.md, "Profiles").

// RUN: tgc-run %s --entry mlp --device cuda --compile-only --ptx-only --calls x=8x64 --calls x=100x64 --profile \
// RUN:   | FileCheck %s
// CHECK:      profile of call 1 (100x64, 128x64, 128, 10x128, 10): not timed (--compile-only):
// CHECK-NEXT: step  kernel             strategy         launch                     bytes
// A: 100x64, B: 128x64, C: 100x128 and the bias, f32: 110080 bytes.
// CHECK-NEXT: 0     gemm               cuBLASLt + bias  m 100 n 128 k 64 batch 1 f32  107.5 KiB
// GELU in place over C: read and written.
// CHECK-NEXT: 1     mlp_elementwise_0  elementwise      grid 13x1x1 block 256x1x1  100.0 KiB
// CHECK-NEXT: 2     gemm               cuBLASLt + bias  m 100 n 10 k 128 batch 1 f32  58.9 KiB
// The row statistics (2 x 100 floats written), the logits read, the
// probabilities written: 8800 bytes.
// CHECK-NEXT: 3     mlp_warp_rows_1    warp_rows        grid 25x1x1 block 128x1x1  8.6 KiB
// CHECK-NEXT: compiled @mlp

// RUN: tgc-run %s --entry mlp --device cuda --compile-only --ptx-only --shape x=100x64 --profile --json \
// RUN:   | FileCheck %s --check-prefix=JSON
// JSON:      "profile": [
// JSON:          "bytes": 110080,
// JSON-NEXT:     "flops": 1638400,
// JSON-NEXT:     "launch": "m 100 n 128 k 64 batch 1 f32",
// JSON-NEXT:     "name": "gemm",
// JSON-NEXT:     "skipped": false,
// JSON-NEXT:     "strategy": "cuBLASLt + bias"
// JSON:          "bytes": 102400,
// JSON-NOT:      "ms"
// JSON:          "name": "mlp_elementwise_0",

// RUN: not tgc-run %s --entry mlp --shape x=4x64 --profile 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: tgc-run: error: --cuda-graphs, --device-asserts, --fresh-inputs, --compile-only, --emit-artifact, --emit-plan, --ptx-only and --profile need --device cuda

// bf16 attention: the probabilities are rounded to bf16 (as PyTorch's
// math path and flash attention have them), so both products are cuBLASLt
// GEMMs around one row kernel; with P in f32 the second product was a
// tree reduction at 4% of the H100's bandwidth (docs/performance.md).
// RUN: tgc-run %s --entry attention --device cuda --compile-only --ptx-only --profile \
// RUN:   | FileCheck %s --check-prefix=ATTN
// ATTN:      0  gemm  cuBLASLt  m 512 n 512 k 64 batch 96 bf16->f32
// ATTN-NEXT: 1  attention_warp_rows_0  warp_rows
// ATTN-NEXT: 2  gemm  cuBLASLt  m 512 n 64 k 512 batch 96 bf16
// ATTN-NEXT: compiled @attention {{.*}} 1 kernel(s), 2 GEMM(s)

func.func @attention(%q: tensor<8x12x512x64xbf16>, %k: tensor<8x12x512x64xbf16>,
                     %v: tensor<8x12x512x64xbf16>) -> tensor<8x12x512x64xbf16> {
  %r = tgc.scaled_dot_product_attention %q, %k, %v causal : tensor<8x12x512x64xbf16>, tensor<8x12x512x64xbf16>, tensor<8x12x512x64xbf16> -> tensor<8x12x512x64xbf16>
  return %r : tensor<8x12x512x64xbf16>
}

func.func @mlp(%x: tensor<?x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>,
               %w2: tensor<10x128xf32>, %b2: tensor<10xf32>) -> tensor<?x10xf32> {
  %h = tgc.linear %x, %w1, %b1 : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %a = tgc.gelu %h : tensor<?x128xf32>
  %y = tgc.linear %a, %w2, %b2 : tensor<?x128xf32>, tensor<10x128xf32>, tensor<10xf32> -> tensor<?x10xf32>
  %p = tgc.softmax %y dim = 1 : tensor<?x10xf32>
  return %p : tensor<?x10xf32>
}
