// RUN: not tgc-translate --tgc-to-object %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// RUN: tgc-opt %s --tgc-cpu-pipeline | not tgc-translate --tgc-to-object --tgc-host-cpu=no-such-cpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: tgc-opt %s --tgc-cpu-pipeline | not tgc-translate --tgc-to-shared-object --tgc-linker-path=/nonexistent/ld.lld -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINKER

// The host translations want a lowered module, a CPU LLVM knows and a
// linker; each failure is one diagnostic that says what to do.

// UNLOWERED: invalid.mlir:[[@LINE+4]]:8: error: 'tgc.exp' is not lowered to the LLVM dialect; run tgc-opt --tgc-cpu-pipeline on the module first
// CPU: error: unknown CPU 'no-such-cpu' for x86_64{{.*}} (try native, generic or x86-64-v3)
// LINKER: error: linker '/nonexistent/ld.lld' is not an executable file
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tgc.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
