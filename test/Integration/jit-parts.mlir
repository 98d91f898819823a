// TGC_JIT_PARTS=1: a line per LLVM JIT part on stderr, with its time, its
// instructions and its largest functions (docs/cpu-pipeline.md, "LLVM on
// several threads"); nothing without it.

// RUN: env TGC_JIT_PARTS=1 TGC_COMPILE_THREADS=2 tgc-run %s --check reference 2>&1 | FileCheck %s
// RUN: env TGC_COMPILE_THREADS=2 tgc-run %s --check reference 2>&1 | FileCheck %s --check-prefix=QUIET

// CHECK: [tgc] LLVM JIT part 0{{( \(glue, fast\))?}}: {{[0-9.]+}} ms, {{[0-9]+}} instructions in {{[0-9]+}} functions; largest: {{.+}} ({{[0-9]+}})
// CHECK: reference check: ok
// QUIET-NOT: LLVM JIT part
// QUIET: reference check: ok

func.func @f(%x: tensor<64x128xf32>, %w: tensor<96x128xf32>, %b: tensor<96xf32>) -> tensor<64x96xf32> {
  %y = tgc.linear %x, %w, %b : tensor<64x128xf32>, tensor<96x128xf32>, tensor<96xf32> -> tensor<64x96xf32>
  %g = tgc.gelu %y : tensor<64x96xf32>
  return %g : tensor<64x96xf32>
}
