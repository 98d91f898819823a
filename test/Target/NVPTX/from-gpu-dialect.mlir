// What tgc-opt's GPU lowering leaves is what tgc-translate takes; math.exp
// becomes a libdevice call that --tgc-to-ptx links and inlines. libdevice
// comes with ptxas in the CUDA toolkit.
// REQUIRES: ptxas
// RUN: tgc-opt %s --convert-scf-to-cf --convert-gpu-to-nvvm \
// RUN:   --reconcile-unrealized-casts | tgc-translate --tgc-to-ptx | FileCheck %s

// CHECK-LABEL: // gpu.module @kernels
// CHECK:       .target sm_90
// CHECK-LABEL: .visible .entry exp_kernel(
// CHECK-DAG:   %tid.x
// CHECK-DAG:   %ctaid.x
// CHECK-DAG:   %ntid.x
// CHECK:       ld.global
// CHECK:       ex2.approx
// CHECK:       st.global
// CHECK-NOT:   __nv_expf

gpu.module @kernels {
  gpu.func @exp_kernel(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %inBounds = arith.cmpi slt, %i, %n : index
    scf.if %inBounds {
      %v = memref.load %x[%i] : memref<?xf32>
      %e = math.exp %v : f32
      memref.store %e, %y[%i] : memref<?xf32>
    }
    gpu.return
  }
}
