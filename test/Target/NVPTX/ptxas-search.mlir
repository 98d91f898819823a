// ptxas is looked for in $CUDA_HOME/bin first, then $CUDA_PATH/bin; the
// fake ptxas here writes a recognizable "cubin" (ELF magic first: a
// ptxas that exits with 0 but writes nothing, or no ELF file, is an
// error, not a 0-byte cubin).

// RUN: rm -rf %t && split-file %s %t
// RUN: mkdir -p %t/home/bin %t/path/bin
// RUN: cp %t/fake-ptxas.sh %t/home/bin/ptxas && chmod +x %t/home/bin/ptxas
// RUN: cp %t/fake-ptxas.sh %t/path/bin/ptxas && chmod +x %t/path/bin/ptxas

// RUN: env CUDA_HOME=%t/home CUDA_PATH=%t/path \
// RUN:   tgc-translate --tgc-to-cubin %t/kernel.mlir | FileCheck %s -DDIR=%t/home
// RUN: env -u CUDA_HOME CUDA_PATH=%t/path \
// RUN:   tgc-translate --tgc-to-cubin %t/kernel.mlir | FileCheck %s -DDIR=%t/path
// An explicit ptxas wins over the environment.
// RUN: env CUDA_HOME=%t/home tgc-translate --tgc-to-cubin \
// RUN:   --tgc-ptxas-path=%t/path/bin/ptxas --tgc-gpu-chip=sm_80 \
// RUN:   --tgc-gpu-opt-level=1 %t/kernel.mlir \
// RUN:   | FileCheck %s -DDIR=%t/path --check-prefix=EXPLICIT

// CHECK: ELF fake cubin from [[DIR]]/bin/ptxas -arch=sm_90 -O3
// EXPLICIT: ELF fake cubin from [[DIR]]/bin/ptxas -arch=sm_80 -O1

// RUN: cp %t/silent-ptxas.sh %t/silent && chmod +x %t/silent
// RUN: not tgc-translate --tgc-to-cubin --tgc-ptxas-path=%t/silent %t/kernel.mlir -o %t/out.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SILENT
// SILENT: error: ptxas ({{.*}}silent) exited with 0 but wrote no cubin (0 bytes)
// RUN: cp %t/text-ptxas.sh %t/text && chmod +x %t/text
// RUN: not tgc-translate --tgc-to-cubin --tgc-ptxas-path=%t/text %t/kernel.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TEXT
// TEXT: error: ptxas ({{.*}}text) exited with 0 but wrote a cubin that is not an ELF file (5 bytes)

//--- kernel.mlir
gpu.module @kernels {
  llvm.func @k() attributes {nvvm.kernel} {
    llvm.return
  }
}

//--- fake-ptxas.sh
#!/bin/sh
self="$0"; arch="$1"; opt="$2"
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; fi
  shift
done
printf '\177ELF fake cubin from %s %s %s\n' "$self" "$arch" "$opt" > "$out"

//--- silent-ptxas.sh
#!/bin/sh
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; fi
  shift
done
: > "$out"

//--- text-ptxas.sh
#!/bin/sh
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; fi
  shift
done
echo "oops" > "$out"
