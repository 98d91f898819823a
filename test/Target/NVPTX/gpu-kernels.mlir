// RUN: tgc-opt %s --tgc-gpu-pipeline --split-input-file \
// RUN:   | tgc-translate --tgc-to-ptx --split-input-file | FileCheck %s

// The PTX of each kernel family of tgc-gpu-pipeline. Runs everywhere (no
// ptxas, no GPU).

// Elementwise over contiguous buffers: a grid-stride loop of 16-byte
// vector loads and stores, then a scalar remainder; sizes as 64-bit
// parameters.
// CHECK-LABEL: .visible .entry pointwise_elementwise_0(
// CHECK: .param .u64
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.x
// CHECK: mov.u32 %r{{[0-9]+}}, %nctaid.x
// CHECK: ld.global.v4.b32
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
// CHECK: ld.global.b32
// CHECK: st.global.b32
func.func @pointwise(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = tgc.add %x, %y : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %r = tgc.relu %a : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Row reductions: butterfly shuffles within the warp, shared memory across
// warps, block barriers; exp through libdevice.
// CHECK-LABEL: .visible .entry softmax_rows_0(
// CHECK: .shared .align {{[0-9]+}} .b8 __wg_softmax_rows_0_0[16]
// CHECK: ld.global.b32
// CHECK: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, -1
// CHECK: st.shared.b32
// CHECK: bar.sync 0
// CHECK: ld.shared.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: ex2.approx
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// Rows of a static length that a block's threads divide in 16-byte chunks:
// the row is read and written with vector accesses, each thread's values
// kept in registers across the stages; two barriers in all (one per block
// reduction).
// CHECK-LABEL: .visible .entry softmax_static_rows_0(
// CHECK: ld.global.v4.b32
// CHECK: ld.global.v4.b32
// CHECK: bar.sync 0
// CHECK: ex2.approx
// CHECK: bar.sync 0
// CHECK-NOT: bar.sync
// CHECK: st.global.v4.b32
// CHECK: st.global.v4.b32
func.func @softmax_static(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x1024xf32>
  return %s : tensor<?x1024xf32>
}

// -----

// Tree reductions: the first stage reads 16-byte vectors (or scalars when
// the length is not a multiple of 4), combines within the warp by
// shuffles; the second stage combines the warps' partials through shared
// memory.
// CHECK-LABEL: .visible .entry full_max_tree_0(
// CHECK: ld.global.b32
// CHECK: ld.global.v4.b32
// CHECK: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, -1
// CHECK: setp.nan.f32
// CHECK: st.global.b32
// CHECK-LABEL: .visible .entry full_max_tree_final_1(
// CHECK: .shared .align 4 .b8 __wg_full_max_tree_final_1_0[128]
// CHECK: ld.global.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0
// CHECK: ld.shared.b32
func.func @full_max(%x: tensor<?xf32>) -> tensor<f32> {
  %s = tgc.amax %x dims [0] : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A dense constant: a visible, initialized global of the module's global
// space (not the 64 KiB constant bank), which the kernel reads through its
// buffer parameter.
// CHECK: .visible .global .align 64 .b8 __constant_3xf32[12] = {0, 0, 0, 63, 0, 0, 128, 191, 0, 0, 0, 64};
// CHECK-LABEL: .visible .entry dense_elementwise_0(
// CHECK: ld.global.b32
func.func @dense(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %s = tgc.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %y = tgc.mul %x, %s : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
