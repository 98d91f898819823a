// With several compile threads the kernels' LLVM work runs in parts, each
// in its own LLVMContext and thread, and the parts' PTX is joined into one
// module (lib/Target/NVPTX/SplitKernels.h). ptxas must take the joined
// module: one header, each `.extern` declaration once, the globals the
// runtime looks up by name defined once (part 0 keeps them, with the kernel
// that reads one), and each part's local symbols renamed apart.
// REQUIRES: ptxas
// RUN: tgc-translate --tgc-to-ptx --tgc-gpu-compile-threads=3 --tgc-gpu-module=kernels %s \
// RUN:   | FileCheck %s --implicit-check-not=.version \
// RUN:       --implicit-check-not=.extern --implicit-check-not=.target \
// RUN:       --implicit-check-not=".b8 weights" \
// RUN:       --implicit-check-not="__tgc_part3"
// RUN: tgc-translate --tgc-to-cubin --tgc-gpu-compile-threads=3 --tgc-gpu-module=kernels %s -o %t.cubin
// RUN: od -A n -t x1 -N 4 %t.cubin | FileCheck %s --check-prefix=MAGIC
// One thread: the module whole, nothing renamed.
// RUN: tgc-translate --tgc-to-ptx --tgc-gpu-compile-threads=1 --tgc-gpu-module=kernels %s \
// RUN:   | FileCheck %s --check-prefix=ONE

// Kernels that all read a visible global stay in one part.
// RUN: tgc-translate --tgc-to-ptx --tgc-gpu-compile-threads=3 \
// RUN:   --tgc-gpu-module=pinned %s | FileCheck %s --check-prefix=PINNED

// CHECK:      .version
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK:      .extern .func  (.param .b32 func_retval0) vprintf
// CHECK:      .extern .shared .align 16 .b8 shm[];
// Part 0: the visible global, the kernel that reads it, the helper.
// CHECK:      .visible .global .align 16 .b8 weights[16]
// CHECK:      .visible .func  (.param .b32 func_retval0) helper(
// CHECK:      .visible .entry k1(
// Parts 1 and 2: their own copies of the helper and the format string.
// CHECK-DAG:  .func  (.param .b32 func_retval0) helper__tgc_part{{[12]}}(
// CHECK-DAG:  .global .align 1 .b8 fmt__tgc_part{{[12]}}[6]
// CHECK-DAG:  .visible .entry k2(
// CHECK-DAG:  .visible .entry k3(
// CHECK-DAG:  .visible .entry k4(

// MAGIC: 7f 45 4c 46

// ONE-NOT:   __tgc_part
// ONE:       .visible .entry k1(
// ONE:       .visible .entry k2(
// ONE:       .visible .entry k3(
// ONE:       .visible .entry k4(

// PINNED-NOT:  __tgc_part
// PINNED:      .visible .entry p1(
// PINNED:      .visible .entry p2(

gpu.module @kernels {
  llvm.mlir.global external constant @weights(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>
  llvm.mlir.global external @shm() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global private constant @fmt("k %d\0A\00") {addr_space = 1 : i32} : !llvm.array<6 x i8>
  llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
  llvm.func @__nv_expf(f32) -> f32

  llvm.func @helper(%x: f32) -> f32 attributes {no_inline} {
    %e = llvm.call @__nv_expf(%x) : (f32) -> f32
    %r = llvm.fadd %e, %x : f32
    llvm.return %r : f32
  }

  llvm.func @k1(%y: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %w = llvm.mlir.addressof @weights : !llvm.ptr<1>
    %p = llvm.getelementptr %w[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %v = llvm.load %p : !llvm.ptr<1> -> f32
    %h = llvm.call @helper(%v) : (f32) -> f32
    %q = llvm.getelementptr %y[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %h, %q : f32, !llvm.ptr<1>
    llvm.return
  }

  // Shared memory, the helper and printf.
  llvm.func @k2(%y: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %q = llvm.getelementptr %y[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %v = llvm.load %q : !llvm.ptr<1> -> f32
    %h = llvm.call @helper(%v) : (f32) -> f32
    %s = llvm.mlir.addressof @shm : !llvm.ptr<3>
    %sp = llvm.getelementptr %s[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    llvm.store %h, %sp : f32, !llvm.ptr<3>
    nvvm.barrier0
    %r = llvm.load %s : !llvm.ptr<3> -> f32
    llvm.store %r, %q : f32, !llvm.ptr<1>
    %f = llvm.mlir.addressof @fmt : !llvm.ptr<1>
    %fg = llvm.addrspacecast %f : !llvm.ptr<1> to !llvm.ptr
    %one = llvm.mlir.constant(1 : i32) : i32
    %buf = llvm.alloca %one x i32 : (i32) -> !llvm.ptr
    llvm.store %tid, %buf : i32, !llvm.ptr
    %n = llvm.call @vprintf(%fg, %buf) : (!llvm.ptr, !llvm.ptr) -> i32
    llvm.return
  }

  // The same uses from another part.
  llvm.func @k3(%y: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %q = llvm.getelementptr %y[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %v = llvm.load %q : !llvm.ptr<1> -> f32
    %h = llvm.call @helper(%v) : (f32) -> f32
    %s = llvm.mlir.addressof @shm : !llvm.ptr<3>
    llvm.store %h, %s : f32, !llvm.ptr<3>
    nvvm.barrier0
    %sp = llvm.getelementptr %s[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    %r = llvm.load %sp : !llvm.ptr<3> -> f32
    llvm.store %r, %q : f32, !llvm.ptr<1>
    %f = llvm.mlir.addressof @fmt : !llvm.ptr<1>
    %fg = llvm.addrspacecast %f : !llvm.ptr<1> to !llvm.ptr
    %one = llvm.mlir.constant(1 : i32) : i32
    %buf = llvm.alloca %one x i32 : (i32) -> !llvm.ptr
    llvm.store %tid, %buf : i32, !llvm.ptr
    %n = llvm.call @vprintf(%fg, %buf) : (!llvm.ptr, !llvm.ptr) -> i32
    llvm.return
  }

  llvm.func @k4(%y: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %q = llvm.getelementptr %y[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %tid, %q : i32, !llvm.ptr<1>
    llvm.return
  }
}

gpu.module @pinned {
  llvm.mlir.global external constant @c(dense<[1, 2]> : tensor<2xi32>) {addr_space = 1 : i32} : !llvm.array<2 x i32>
  llvm.func @p1(%y: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %c = llvm.mlir.addressof @c : !llvm.ptr<1>
    %v = llvm.load %c : !llvm.ptr<1> -> i32
    llvm.store %v, %y : i32, !llvm.ptr<1>
    llvm.return
  }
  llvm.func @p2(%y: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %c = llvm.mlir.addressof @c : !llvm.ptr<1>
    %p = llvm.getelementptr %c[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
    %v = llvm.load %p : !llvm.ptr<1> -> i32
    llvm.store %v, %y : i32, !llvm.ptr<1>
    llvm.return
  }
}
