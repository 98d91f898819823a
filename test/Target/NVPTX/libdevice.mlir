// libdevice is linked when a kernel calls __nv_* functions, as
// --convert-gpu-to-nvvm leaves math.exp and friends. A CUDA toolkit with
// ptxas has libdevice too.
// REQUIRES: ptxas
// RUN: tgc-translate --tgc-to-ptx %s | FileCheck %s
// RUN: tgc-translate --tgc-to-cubin %s | od -A n -t x1 -N 4 \
// RUN:   | FileCheck %s --check-prefix=MAGIC

// Only what the kernel needs is linked, and inlined.
// CHECK-NOT:   .func
// CHECK-LABEL: .visible .entry exp_kernel(
// CHECK:       ex2.approx
// CHECK-NOT:   __nv_
// CHECK-NOT:   .func

// MAGIC: 7f 45 4c 46

gpu.module @kernels {
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @exp_kernel(%x: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %p = llvm.getelementptr %x[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %v = llvm.load %p : !llvm.ptr<1> -> f32
    %e = llvm.call @__nv_expf(%v) : (f32) -> f32
    llvm.store %e, %p : f32, !llvm.ptr<1>
    llvm.return
  }
}
