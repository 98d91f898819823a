// tgc-run takes mlir-opt's pass-manager, timing and printer options and
// applies them to the pass managers the compilers build (issue 23).
//
// RUN: tgc-run %s --shape 0=3x4 --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING
// TIMING:      Execution time report
// TIMING:      Parse
// TIMING-NEXT: Compile
// TIMING-NEXT:   TgcCheckSymbolNames
// TIMING:          TgcSymbolizeShapes
// TIMING:        ConvertToLLVMPass
// TIMING:      Run
// TIMING:      Total
//
// RUN: tgc-run %s --shape 0=3x4 --check reference --mlir-timing --mlir-timing-display=list 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=LIST
// LIST-DAG: Reference
// LIST-DAG: TgcFuse
//
// RUN: tgc-run %s --shape 0=3x4 --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// AFTER: IR Dump After TgcCheckSymbolNames (tgc-check-symbol-names)
// AFTER: IR Dump After TgcSymbolizeShapes (tgc-symbolize-shapes)
// AFTER-NEXT: func.func @tgc_entry_f
// AFTER-NEXT: tgc_sym.symbol "s0"
// AFTER: IR Dump After ConvertToLLVMPass (convert-to-llvm)
// AFTER: llvm.func
//
// RUN: tgc-run %s --shape 0=3x4 --mlir-print-ir-before-all 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// BEFORE: IR Dump Before TgcCheckSymbolNames (tgc-check-symbol-names)
//
// RUN: tgc-run %s --shape 0=3x4 --mlir-print-ir-after=tgc-fuse --mlir-print-debuginfo 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=ONE
// ONE:     IR Dump After TgcFuse (tgc-fuse)
// ONE:     tgc.add {{.*}} loc(
// ONE-NOT: IR Dump
//
// The GPU compiler's pass manager too (no GPU needed).
// RUN: tgc-run %s --shape 0=3x4 --device cuda --compile-only --ptx-only \
// RUN:   --mlir-print-ir-after=tgc-gpu-select-strategy 2>&1 >/dev/null | FileCheck %s --check-prefix=GPU
// GPU: IR Dump After TgcGpuSelectStrategy (tgc-gpu-select-strategy)
//
// Without them, nothing on stderr.
// RUN: tgc-run %s --shape 0=3x4 2>&1 >/dev/null | count 0

func.func @f(%x: tensor<?x4xf32>, %bias: tensor<4xf32>) -> tensor<?x4xf32> {
  %r = tgc.add %x, %bias : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
