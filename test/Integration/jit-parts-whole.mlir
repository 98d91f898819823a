// TGC_JIT_PARTS=1 on a module too small to split into parts: one line,
// for the whole module (jit-parts.mlir: the parts of a larger one).

// RUN: env TGC_JIT_PARTS=1 tgc-run %s --check reference 2>&1 | FileCheck %s

// CHECK: [tgc] LLVM JIT part 0 (the whole module): {{[0-9.]+}} ms, {{[0-9]+}} instructions in {{[0-9]+}} functions; largest: {{.+}} ({{[0-9]+}})
// CHECK-NOT: LLVM JIT part
// CHECK: reference check: ok

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tgc.exp %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
