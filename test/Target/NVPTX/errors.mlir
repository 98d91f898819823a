// Every user error of --tgc-to-ptx and --tgc-to-cubin is a diagnostic.

// RUN: split-file %s %t

// RUN: not tgc-translate --tgc-to-ptx %t/no-gpu-module.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-MODULE
// NO-MODULE: error: no gpu.module to translate

// RUN: not tgc-translate --tgc-to-ptx %t/gpu-func.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GPU-FUNC
// GPU-FUNC: gpu-func.mlir:2:3: error: 'gpu.func' is not lowered to the LLVM and NVVM dialects; lower gpu.module @unlowered
// GPU-FUNC: gpu-func.mlir:1:1: note: in this gpu.module

// RUN: not tgc-translate --tgc-to-ptx %t/arith-in-llvm-func.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ARITH
// ARITH: arith-in-llvm-func.mlir:3:10: error: 'arith.addi' is not lowered to the LLVM and NVVM dialects

// RUN: not tgc-translate --tgc-to-ptx --tgc-gpu-chip=sm_xx %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// CHIP: error: unknown NVIDIA GPU chip 'sm_xx'; LLVM's NVPTX back end knows: {{.*}}sm_80, {{.*}}sm_90
// CHIP-NOT: is not a recognized processor

// RUN: not tgc-translate --tgc-to-ptx --tgc-gpu-features=+ptx999 %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FEATURE
// FEATURE: error: unknown NVPTX target feature 'ptx999' in '+ptx999'
// FEATURE-NOT: is not a recognized feature

// RUN: not tgc-translate --tgc-to-ptx --tgc-gpu-features=ptx80 %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FEATURE-SIGN
// FEATURE-SIGN: error: NVPTX target feature 'ptx80' must start with '+' or '-'

// RUN: not tgc-translate --tgc-to-ptx --tgc-gpu-features=+ptx60,+ptx70 %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OLD-PTX
// OLD-PTX: error: PTX ISA 7.0 (from '+ptx60,+ptx70') does not support sm_90, which needs PTX ISA 7.8 or later; drop the PTX feature or raise it
// OLD-PTX-NOT: LLVM ERROR

// RUN: not tgc-translate --tgc-to-ptx --tgc-gpu-opt-level=4 %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT-LEVEL
// OPT-LEVEL: error: invalid GPU optimization level 4 (expected 0 to 3)

// RUN: not tgc-translate --tgc-to-ptx --tgc-gpu-module=c %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-SUCH-MODULE
// NO-SUCH-MODULE: error: no gpu.module named 'c' (--tgc-gpu-module); the input has @a, @b

// RUN: not tgc-translate --tgc-to-cubin %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWO-MODULES
// TWO-MODULES: error: --tgc-to-cubin makes one cubin, but the input has 2 gpu.modules (@a, @b); choose one with --tgc-gpu-module=NAME

// RUN: not tgc-translate --tgc-to-cubin --tgc-gpu-module=a \
// RUN:   --tgc-ptxas-path=%t/no/such/ptxas %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-PTXAS -DDIR=%t
// NO-PTXAS: error: ptxas '[[DIR]]/no/such/ptxas' does not exist or is not an executable file

// RUN: not tgc-translate --tgc-to-ptx --tgc-libdevice-path=%t/no/libdevice.bc \
// RUN:   %t/calls-libdevice.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-LIBDEVICE -DDIR=%t
// NO-LIBDEVICE: calls-libdevice.mlir:1:1: error: gpu.module @m calls libdevice (__nv_expf), but libdevice '[[DIR]]/no/libdevice.bc' does not exist or is not a file

// A ptxas that fails: its messages are part of the diagnostic.
// RUN: chmod +x %t/failing-ptxas.sh
// RUN: not tgc-translate --tgc-to-cubin --tgc-gpu-module=b \
// RUN:   --tgc-ptxas-path=%t/failing-ptxas.sh %t/two-modules.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PTXAS-FAILS
// PTXAS-FAILS: error: ptxas failed with exit code 3 for sm_90 ({{.*}}failing-ptxas.sh):
// PTXAS-FAILS-NEXT: fake ptxas: -arch=sm_90 -O3
// PTXAS-FAILS-NEXT: fake ptxas: no luck today

//--- no-gpu-module.mlir
llvm.func @host() {
  llvm.return
}

//--- gpu-func.mlir
gpu.module @unlowered {
  gpu.func @add(%a: i32, %b: i32) kernel {
    %c = arith.addi %a, %b : i32
    gpu.return
  }
}

//--- arith-in-llvm-func.mlir
gpu.module @half_lowered {
  llvm.func @add(%a: i32, %b: i32) attributes {nvvm.kernel} {
    %c = arith.addi %a, %b : i32
    llvm.return
  }
}

//--- two-modules.mlir
gpu.module @a {
  llvm.func @ka() attributes {nvvm.kernel} {
    llvm.return
  }
}
gpu.module @b {
  llvm.func @kb() attributes {nvvm.kernel} {
    llvm.return
  }
}

//--- calls-libdevice.mlir
gpu.module @m {
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @k(%x: f32) attributes {nvvm.kernel} {
    %e = llvm.call @__nv_expf(%x) : (f32) -> f32
    llvm.return
  }
}

//--- failing-ptxas.sh
#!/bin/sh
echo "fake ptxas: $1 $2" >&2
echo "fake ptxas: no luck today" >&2
exit 3
