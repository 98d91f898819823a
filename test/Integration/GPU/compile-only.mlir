// The GPU path without a GPU: kernels, launch plan and artifact. Runs
// everywhere (CI has no GPU).

// RUN: tgc-run %s --entry softmax --device cuda --compile-only --ptx-only --calls 0=8x1024 \
// RUN:   --emit-plan - --emit-artifact %t.tgca | FileCheck %s
// CHECK:      function softmax
// CHECK:      arg 0 f32 2
// CHECK:      result 0 f32 2
// CHECK:      guard rank 0 2
// CHECK:      guard device 0 cuda
// CHECK:      kernel softmax_rows_0
// CHECK:      launch k0 grid
// CHECK:      compiled @softmax 1 time(s) for 1 call(s) on no device (compile only)
// CHECK-SAME: 1 kernel(s), 0 GEMM(s), PTX

// RUN: tgc-run %s --entry linear --device cuda --compile-only --ptx-only --calls 0=8x64 --json \
// RUN:   | FileCheck %s --check-prefix=LINEAR
// LINEAR: "gemms": 1,
// LINEAR: "kernels": 0,
// LINEAR: "module_format": "none"

// The bias is the GEMM's cuBLASLt epilogue, writing the result directly;
// without epilogues the add is a kernel over the product.
// RUN: tgc-run %s --entry linear --device cuda --compile-only --ptx-only --calls 0=8x64 \
// RUN:   --emit-plan - | FileCheck %s --check-prefix=EPI
// EPI: buffer result 0
// EPI: buffer arg 2
// EPI: gemm f32 out f32 m {{.*}} c b0 bias b{{[0-9]+}} epilogue bias
// EPI-NOT: launch
// RUN: tgc-run %s --entry linear --device cuda --compile-only --ptx-only --calls 0=8x64 \
// RUN:   --gpu-gemm-epilogues=false --emit-plan - | FileCheck %s --check-prefix=NOEPI
// NOEPI: gemm f32 out f32 {{.*}} bias none epilogue none
// NOEPI: launch k0
// A linear layer's f32 GEMM rounds to TF32 only with --gpu-tf32-matmuls
// (PyTorch's torch.backends.cuda.matmul.allow_tf32; EPI above has none).
// RUN: tgc-run %s --entry linear --device cuda --compile-only --ptx-only --calls 0=8x64 \
// RUN:   --gpu-tf32-matmuls --emit-plan - | FileCheck %s --check-prefix=TF32
// RUN: tgc-run %s --entry linear --device cuda --compile-only --ptx-only --calls 0=8x64 \
// RUN:   --gpu-tf32-convolutions --emit-plan - | FileCheck %s --check-prefix=EPI
// TF32: gemm f32 out f32 tf32 m {{.*}} epilogue bias

// Divisions of a row by its sum become one reciprocal and multiplications,
// unless --gpu-exact-division (the C API's and Python's `exact-division=1`
// option) asks for IEEE divisions: 8 per thread of the 1024-wide rows.
// RUN: tgc-run %s --entry softmax_static --device cuda --compile-only --ptx-only \
// RUN:   --emit-artifact %t.recip.tgca > /dev/null
// RUN: FileCheck %s --check-prefix=RECIP --input-file %t.recip.tgca
// RECIP: .entry softmax_static_rows_0
// RECIP-NOT: div.rn.f32
// RUN: tgc-run %s --entry softmax_static --device cuda --compile-only --ptx-only \
// RUN:   --gpu-exact-division --emit-artifact %t.exact.tgca > /dev/null
// RUN: FileCheck %s --check-prefix=EXACT --input-file %t.exact.tgca
// EXACT: .entry softmax_static_rows_0
// EXACT-COUNT-8: div.rn.f32

// 16-byte vector accesses (tgc-gpu-pipeline's `vectorize`) come with an
// alignment guard; --gpu-vectorize=false compiles without them.
// RUN: tgc-run %s --entry softmax_static --device cuda --compile-only --ptx-only --emit-plan - \
// RUN:   | FileCheck %s --check-prefix=VECTOR
// RUN: tgc-run %s --entry softmax_static --device cuda --compile-only --ptx-only --emit-plan - \
// RUN:   --gpu-vectorize=false | FileCheck %s --check-prefix=SCALAR
// VECTOR: guard aligned 0 16
// SCALAR-NOT: aligned

// A dense constant is a global of the kernel module, which the plan names
// with its size; a function whose only kernel-module content is a GEMM's
// constant weight still ships the module.
// RUN: tgc-run %s --entry dense --device cuda --compile-only --ptx-only --calls 0=8x3 \
// RUN:   --emit-plan - | FileCheck %s --check-prefix=DENSE
// DENSE:      kernel dense_elementwise_0
// DENSE-NEXT: global __constant_3xf32 12
// DENSE-NEXT: global __constant_3x2xf32 24
// DENSE:      buffer global 0 none
// DENSE:      buffer global 1 none
// DENSE:      launch k0
// DENSE:      gemm f32
// RUN: tgc-run %s --entry dense_weight --device cuda --compile-only --ptx-only --calls 0=8x3 --json \
// RUN:   | FileCheck %s --check-prefix=WEIGHT
// WEIGHT: "gemms": 1,
// WEIGHT: "kernels": 0,
// WEIGHT: "module_format": "ptx"

// A gather's indices are checked on the device: the flag's kernels, then
// a check step naming the op; the index bound against the input is a
// guard on the sizes.
// RUN: tgc-run %s --entry gather --device cuda --compile-only --ptx-only --calls 0=5x8,1=5x3 \
// RUN:   --emit-plan - | FileCheck %s --check-prefix=GATHER
// GATHER: guard range n{{[0-9]+}} 0 -1 "sizes in order" "tgc.gather: index is larger than the input in a dimension other than dim at
// GATHER: launch k1
// GATHER-NEXT: check flag b{{[0-9]+}} when none index "tgc.gather: index out of range at {{.*}}compile-only.mlir:{{[0-9]+}}:8"
// GATHER-NEXT: launch k2
// With device asserts (reduce-overhead) the gather checks each index in
// its own kernel: no flag, no reduction, no check step.
// RUN: tgc-run %s --entry gather --device cuda --compile-only --ptx-only --calls 0=5x8,1=5x3 \
// RUN:   --device-asserts --emit-plan - | FileCheck %s --check-prefix=GATHER-DA
// GATHER-DA-NOT: tree
// GATHER-DA-NOT: check flag
// GATHER-DA: launch k0
// GATHER-DA-NOT: check flag
// Checks of the inputs come first (tgc-hoist-checks): the plan's check
// step, after which a call waits for its flags, precedes the kernels of
// the computation before the gather, which then run without a wait.
// RUN: tgc-run %s --entry late_gather --device cuda --compile-only --ptx-only --calls 0=5x8,1=5x3 \
// RUN:   --emit-plan - | FileCheck %s --check-prefix=LATE
// LATE:      kernel late_gather_tree_0
// LATE:      kernel late_gather_tree_final_1
// LATE:      kernel late_gather_elementwise_2
// LATE:      launch k0
// LATE-NEXT: launch k1
// LATE-NEXT: check flag b{{[0-9]+}} when none index "tgc.gather: index out of range at
// LATE-NEXT: launch k2
// LATE-NEXT: launch k3
// An integer division's check is skipped for empty results.
// RUN: tgc-run %s --entry divide --device cuda --compile-only --ptx-only --calls 0=7x9,1=9 \
// RUN:   --emit-plan - | FileCheck %s --check-prefix=DIVIDE
// DIVIDE: check flag b{{[0-9]+}} when n{{[0-9]+}} "tgc.div: integer division by zero at
// It is no index check: read on the host with device asserts too.
// RUN: tgc-run %s --entry divide --device cuda --compile-only --ptx-only --calls 0=7x9,1=9 \
// RUN:   --device-asserts --emit-plan - | FileCheck %s --check-prefix=DIVIDE

// The transformer block (a reshape with another tensor's sizes, through a
// host shape buffer) compiles for the GPU; its two residual adds are
// cuBLASLt's (beta = 1), not kernels.
// RUN: tgc-run %S/../model-transformer.mlir --device cuda --compile-only --ptx-only --calls 0=2x5x32 \
// RUN:   | FileCheck %s --check-prefix=BLOCK
// BLOCK: compiled @encoder_block 1 time(s) for 1 call(s) on no device (compile only)
// BLOCK-SAME: 11 kernel(s), 6 GEMM(s), PTX

// Sequential loop nests are kernels: topk over a vector runs on one
// thread (grid and block of 1), topk along rows with a thread per row.
// RUN: tgc-run %s --entry topk --device cuda --compile-only --ptx-only --calls 0=50 \
// RUN:   --emit-plan - | FileCheck %s --check-prefix=TOPK
// TOPK: expr [[ONE:[0-9]+]] const 1{{$}}
// TOPK: kernel topk_serial_
// TOPK: launch k{{[0-9]+}} grid n[[ONE]] n[[ONE]] n[[ONE]] block n[[ONE]] n[[ONE]] n[[ONE]]
// RUN: tgc-run %S/../topk.mlir --entry topk_rows --device cuda --compile-only --ptx-only \
// RUN:   --calls 0=4x5 --emit-plan - | FileCheck %s --check-prefix=ROWS
// ROWS: kernel topk_rows_loop_
// ROWS: kernel topk_rows_loop_

// Cholesky: a thread per matrix of the batch; a failed pivot clears a flag
// that the plan checks after the loop's kernel.
// RUN: tgc-run %S/../cholesky.mlir --device cuda --compile-only --ptx-only --calls 0=2x5x5 \
// RUN:   --emit-plan - | FileCheck %s --check-prefix=CHOL
// CHOL: kernel cholesky_loop_
// CHOL: launch k{{[0-9]+}} {{.*}} params i0 {{.*}} b[[FLAG:[0-9]+]]/0{{{.*}}}
// CHOL-NEXT: check flag b[[FLAG]] when none "tgc.cholesky: the input is not positive-definite at

// out= buffers: the plan checks that they do not overlap the inputs.
// RUN: tgc-run %S/../topk.mlir --entry topk_out --device cuda --compile-only --ptx-only \
// RUN:   --calls 0=37 --emit-plan - | FileCheck %s --check-prefix=ALIAS
// ALIAS: guard no_alias 1 0 "arg1 does not alias arg0" "arg 1 is an out buffer

// A ceil-mode pooling's output size is a choice between two sizes: the plan
// computes it with min and max.
// RUN: tgc-run %S/../nn.mlir --entry conv_pool --device cuda --compile-only --ptx-only \
// RUN:   --calls 0=2x4x9x9,6=1x2x9x11 | FileCheck %s --check-prefix=CEIL
// CEIL: compiled @conv_pool 1 time(s)

// Buffers that the memory planner leaves out (reshaped through a shape
// buffer) get regions of their own after the planned arena.
// RUN: tgc-run %S/../shape.mlir --entry shape_ops --device cuda --compile-only --ptx-only \
// RUN:   --calls 0=2x4x6,1=2x4x6,3=5x4x6 --emit-plan - | FileCheck %s --check-prefix=EXTRA
// EXTRA: arena n[[END:[0-9]+]]
// EXTRA: buffer arena n{{[0-9]+}}

// RUN: not tgc-run %s --entry softmax --cuda-graphs --calls 0=8x1024 2>&1 | FileCheck %s --check-prefix=FLAGS
// FLAGS: need --device cuda

func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

func.func @softmax_static(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<8x1024xf32>
  return %s : tensor<8x1024xf32>
}

func.func @linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<?x32xf32>
  return %h : tensor<?x32xf32>
}

func.func @topk(%x: tensor<?xf32>) -> (tensor<5xf32>, tensor<5xi64>) {
  %v, %i = tgc.topk %x k = 5 dim = 0 : tensor<?xf32> -> tensor<5xf32>, tensor<5xi64>
  return %v, %i : tensor<5xf32>, tensor<5xi64>
}

func.func @dense(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %s = tgc.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %w = tgc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %xs = tgc.mul %x, %s : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %y = tgc.matmul %xs, %w : tensor<?x3xf32>, tensor<3x2xf32> -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

func.func @dense_weight(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %w = tgc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = tgc.matmul %x, %w : tensor<?x3xf32>, tensor<3x2xf32> -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

func.func @gather(%x: tensor<?x8xf32>, %i: tensor<?x3xi64>) -> tensor<?x3xf32> {
  %0 = tgc.gather %x, %i dim = 1 : tensor<?x8xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

func.func @late_gather(%x: tensor<?x8xf32>, %i: tensor<?x3xi64>) -> tensor<?x3xf32> {
  %e = tgc.exp %x : tensor<?x8xf32>
  %0 = tgc.gather %e, %i dim = 1 : tensor<?x8xf32>, tensor<?x3xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

func.func @divide(%x: tensor<?x9xi64>, %y: tensor<9xi64>) -> tensor<?x9xi64> {
  %0 = tgc.div %x, %y rounding = floor : tensor<?x9xi64>, tensor<9xi64> -> tensor<?x9xi64>
  return %0 : tensor<?x9xi64>
}
