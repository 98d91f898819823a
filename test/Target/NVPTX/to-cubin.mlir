// REQUIRES: ptxas
// RUN: tgc-translate --tgc-to-cubin --tgc-gpu-module=fill %s -o %t.cubin
// RUN: %python -c "import sys; sys.exit(open(sys.argv[1], 'rb').read(4) != b'\x7fELF')" %t.cubin
// RUN: tgc-translate --tgc-to-cubin --tgc-gpu-module=scale --tgc-gpu-chip=sm_80 \
// RUN:   --tgc-gpu-opt-level=0 %s | od -A n -t x1 -N 4 | FileCheck %s

// The ELF magic: \x7f 'E' 'L' 'F'.
// CHECK: 7f 45 4c 46

gpu.module @fill {
  llvm.func @fill(%y: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %dst = llvm.getelementptr %y[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %tid, %dst : i32, !llvm.ptr<1>
    llvm.return
  }
}

gpu.module @scale {
  llvm.func @scale(%x: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %ok = llvm.icmp "slt" %tid, %n : i32
    llvm.cond_br %ok, ^body, ^exit
  ^body:
    %p = llvm.getelementptr %x[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %v = llvm.load %p : !llvm.ptr<1> -> f32
    %r = llvm.fmul %v, %v : f32
    llvm.store %r, %p : f32, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
