// ptxas is looked for in $CUDA_HOME/bin first, then $CUDA_PATH/bin; the
// fake ptxas here writes a recognizable "cubin".

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

// CHECK: fake cubin from [[DIR]]/bin/ptxas -arch=sm_90 -O3
// EXPLICIT: fake cubin from [[DIR]]/bin/ptxas -arch=sm_80 -O1

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
echo "fake cubin from $self $arch $opt" > "$out"
