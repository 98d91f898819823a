// RUN: tgc-opt %s --tgc-gpu-dedup-kernels --mlir-print-debuginfo | FileCheck %s
// RUN: tgc-opt %s --tgc-gpu-dedup-kernels | tgc-opt | FileCheck %s --check-prefix=VALID

// Kernels identical but for their names and locations become one: every
// launch of @f_elementwise_2 (a copy of @f_elementwise_0) launches
// @f_elementwise_0, with its own operands; the kept kernel's op carries
// both copies' locations. @f_elementwise_1 (another constant) and
// @f_rows_3 (another signature) stay.

// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @f_kernels::@f_elementwise_0 {{.*}} args(%arg0 : memref<8xf32>)
// CHECK: gpu.launch_func @f_kernels::@f_elementwise_1 {{.*}} args(%arg0 : memref<8xf32>)
// CHECK: gpu.launch_func @f_kernels::@f_elementwise_0 {{.*}} args(%arg1 : memref<8xf32>) {tgc_gpu.vector_align = 16 : i64}
// CHECK: gpu.launch_func @f_kernels::@f_rows_3
// CHECK: gpu.module @f_kernels
// CHECK: gpu.func @f_elementwise_0
// CHECK: arith.mulf {{.*}} loc(#[[FUSED:.*]])
// CHECK: gpu.func @f_elementwise_1
// CHECK-NOT: gpu.func @f_elementwise_2
// CHECK: gpu.func @f_rows_3
// CHECK: #[[FUSED]] = loc(fused[#{{.*}}, #{{.*}}])
// VALID: gpu.module @f_kernels

#layer0 = loc("model.py":10:0)
#layer1 = loc("model.py":20:0)
module attributes {gpu.container_module} {
  func.func @f(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernels::@f_elementwise_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
    gpu.launch_func @f_kernels::@f_elementwise_1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
    gpu.launch_func @f_kernels::@f_elementwise_2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<8xf32>) {tgc_gpu.vector_align = 16 : i64}
    gpu.launch_func @f_kernels::@f_rows_3 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%c : memref<4xf32>)
    return
  }
  gpu.module @f_kernels {
    gpu.func @f_elementwise_0(%x: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<8xf32>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32 loc(#layer0)
      memref.store %r, %x[%i] : memref<8xf32>
      gpu.return
    }
    gpu.func @f_elementwise_1(%x: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<8xf32>
      %three = arith.constant 3.0 : f32
      %r = arith.mulf %v, %three : f32
      memref.store %r, %x[%i] : memref<8xf32>
      gpu.return
    }
    gpu.func @f_elementwise_2(%y: memref<8xf32>) kernel {
      %j = gpu.thread_id x
      %w = memref.load %y[%j] : memref<8xf32>
      %two = arith.constant 2.0 : f32
      %s = arith.mulf %w, %two : f32 loc(#layer1)
      memref.store %s, %y[%j] : memref<8xf32>
      gpu.return
    }
    gpu.func @f_rows_3(%x: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<4xf32>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32
      memref.store %r, %x[%i] : memref<4xf32>
      gpu.return
    }
  }
}
