// RUN: tgc-translate --tgc-to-ptx %s | FileCheck %s
// RUN: tgc-translate --tgc-to-ptx --tgc-gpu-chip=sm_80 %s \
// RUN:   | FileCheck %s --check-prefix=SM80
// RUN: tgc-translate --tgc-to-ptx --tgc-gpu-features=+ptx85 %s \
// RUN:   | FileCheck %s --check-prefix=PTX85
// RUN: tgc-translate --tgc-to-ptx --tgc-gpu-module=other %s \
// RUN:   | FileCheck %s --check-prefix=ONE

// y[i] = x[i] * 2 + 1 for i = ctaid.x * ntid.x + tid.x < n, as
// --convert-gpu-to-nvvm would leave it.

// CHECK-LABEL: // gpu.module @kernels
// CHECK:       .version
// CHECK:       .target sm_90
// CHECK:       .address_size 64
// CHECK-LABEL: .visible .entry scale_add(
// CHECK-NEXT:    .param .u64 {{.*}}scale_add_param_0,
// CHECK-NEXT:    .param .u64 {{.*}}scale_add_param_1,
// CHECK-NEXT:    .param .u32 scale_add_param_2
// CHECK-DAG:   mov.u32 %[[TID:r[0-9]+]], %tid.x;
// CHECK-DAG:   mov.u32 %[[CTAID:r[0-9]+]], %ctaid.x;
// CHECK-DAG:   mov.u32 %[[NTID:r[0-9]+]], %ntid.x;
// CHECK:       mad.lo.s32 %[[I:r[0-9]+]], %[[CTAID]], %[[NTID]], %[[TID]];
// CHECK:       setp.ge.s32 %[[OUT:p[0-9]+]], %[[I]],
// CHECK:       @%[[OUT]] bra
// CHECK:       ld.global.{{[bf]}}32 %[[V:r[0-9]+]],
// The contract flags let LLVM fuse x * 2 + 1: 0f40000000 is 2.0f,
// 0f3F800000 is 1.0f.
// CHECK:       fma.rn.f32 %[[R:r[0-9]+]], %[[V]], 0f40000000, 0f3F800000;
// CHECK:       st.global.{{[bf]}}32 [%{{rd[0-9]+}}], %[[R]];
// CHECK:       ret;
// CHECK-LABEL: // gpu.module @other
// CHECK:       .target sm_90
// CHECK:       .entry fill(

// SM80:     .target sm_80
// SM80-NOT: .target sm_90

// PTX85: .version 8.5
// PTX85: .target sm_90

// ONE-NOT:   @kernels
// ONE:       // gpu.module @other
// ONE:       .entry fill(
// ONE-NOT:   .entry

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @scale_add(%x: !llvm.ptr<1>, %y: !llvm.ptr<1>, %n: i32)
        attributes {nvvm.kernel} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %ctaid = nvvm.read.ptx.sreg.ctaid.x : i32
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %base = llvm.mul %ctaid, %ntid : i32
      %i = llvm.add %base, %tid : i32
      %inBounds = llvm.icmp "slt" %i, %n : i32
      llvm.cond_br %inBounds, ^body, ^exit
    ^body:
      %src = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %v = llvm.load %src : !llvm.ptr<1> -> f32
      %two = llvm.mlir.constant(2.0 : f32) : f32
      %one = llvm.mlir.constant(1.0 : f32) : f32
      %scaled = llvm.fmul %v, %two {fastmathFlags = #llvm.fastmath<contract>} : f32
      %r = llvm.fadd %scaled, %one {fastmathFlags = #llvm.fastmath<contract>} : f32
      %dst = llvm.getelementptr %y[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r, %dst : f32, !llvm.ptr<1>
      llvm.br ^exit
    ^exit:
      llvm.return
    }
  }

  gpu.module @other {
    llvm.func @fill(%y: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %dst = llvm.getelementptr %y[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %tid, %dst : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
