// RUN: tgc-opt %s -tgc-plan-memory="check=true report=true" -allow-unregistered-dialect -split-input-file -verify-diagnostics -mlir-print-local-scope | FileCheck %s

// A chain of 10 elementwise ops (unfused): 9 intermediate buffers, each
// dead two ops after it is written, fit in 2 slots of the arena; the last
// op writes the out buffer. Sizes are symbolic (arg 0 dim 0).

// CHECK-LABEL: func.func @chain
// The layout (for reports): buffer 0 at offset 0, buffer 1 in the other
// slot, buffer 2 back in slot 0 once buffer 0 is dead; each with its first
// and last op position.
// CHECK-SAME: tgc.memory_plan = {arena_bytes = affine_map<()[s0] -> (s0 * 512)>, buffers = 9 : i64, dims = array<i64: 0, 0>,
// CHECK-SAME: layout = {{\[}}[affine_map<()[s0] -> (0)>, affine_map<()[s0] -> (s0 * 256)>, 2, 5], [affine_map<()[s0] -> (s0 * 256)>, affine_map<()[s0] -> (s0 * 256)>, 4, 7], [affine_map<()[s0] -> (0)>, affine_map<()[s0] -> (s0 * 256)>, 6, 9],
// CHECK-SAME: peak_bytes = [affine_map<()[s0] -> (s0 * 256)>, affine_map<()[s0] -> (s0 * 512)>,
// CHECK-SAME: slots = 2 : i64
// CHECK: %[[D:.*]] = memref.dim %arg0, %c0
// CHECK: %[[BYTES:.*]] = arith.muli %[[D]], %c512
// CHECK: %[[ARENA:.*]] = memref.alloc(%[[BYTES]]) {alignment = 64 : i64, tgc.arena} : memref<?xi8>
// CHECK-NOT: memref.alloc(
// CHECK: %[[HALF:.*]] = arith.muli %[[D]], %c256
// CHECK: %[[V0:.*]] = memref.view %[[ARENA]][%c0{{.*}}][%{{.*}}] : memref<?xi8> to memref<?x64xf32>
// CHECK: linalg.exp ins(%arg0 : memref<?x64xf32>) outs(%[[V0]]
// CHECK: %[[V1:.*]] = memref.view %[[ARENA]][%[[HALF]]][%{{.*}}] : memref<?xi8> to memref<?x64xf32>
// CHECK: linalg.exp ins(%[[V0]] : memref<?x64xf32>) outs(%[[V1]]
// CHECK-NOT: memref.alloc
// CHECK: linalg.exp ins(%{{.*}} : memref<?x64xf32>) outs(%arg1
// expected-remark @+1 {{tgc-plan-memory: 9 intermediate buffers in 2 slots; arena arg0_dim0 * 512 bytes}}
func.func @chain(%x: memref<?x64xf32>, %o: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?x64xf32>
  %a0 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%x : memref<?x64xf32>) outs(%a0 : memref<?x64xf32>)
  %a1 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%a0 : memref<?x64xf32>) outs(%a1 : memref<?x64xf32>)
  %a2 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%a1 : memref<?x64xf32>) outs(%a2 : memref<?x64xf32>)
  %a3 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%a2 : memref<?x64xf32>) outs(%a3 : memref<?x64xf32>)
  %a4 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%a3 : memref<?x64xf32>) outs(%a4 : memref<?x64xf32>)
  %a5 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%a4 : memref<?x64xf32>) outs(%a5 : memref<?x64xf32>)
  %a6 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%a5 : memref<?x64xf32>) outs(%a6 : memref<?x64xf32>)
  %a7 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%a6 : memref<?x64xf32>) outs(%a7 : memref<?x64xf32>)
  %a8 = memref.alloc(%d) : memref<?x64xf32>
  linalg.exp ins(%a7 : memref<?x64xf32>) outs(%a8 : memref<?x64xf32>)
  linalg.exp ins(%a8 : memref<?x64xf32>) outs(%o : memref<?x64xf32>)
  return
}

// -----

// Two buffers alive at once get different slots; a returned buffer is not
// planned (the caller owns it); sizes round up to 64 bytes (400 -> 448).
// A static arena is a static alloc, tagged (a dynamic alloc of a constant
// size would lose the tag to the canonicalizer).
// CHECK-LABEL: func.func @overlap
// CHECK-SAME: arena_bytes = affine_map<() -> (896)>
// CHECK-SAME: buffers = 2 : i64
// CHECK-SAME: slots = 2 : i64
// CHECK: memref.alloc() {alignment = 64 : i64, tgc.arena} : memref<896xi8>
// CHECK: %[[R:.*]] = memref.alloc() : memref<100xf32>
// CHECK: return %[[R]]
// expected-remark @+1 {{tgc-plan-memory: 2 intermediate buffers in 2 slots; arena 896 bytes}}
func.func @overlap(%x: memref<100xf32>) -> memref<100xf32> {
  %a = memref.alloc() : memref<100xf32>
  %b = memref.alloc() : memref<100xf32>
  linalg.exp ins(%x : memref<100xf32>) outs(%a : memref<100xf32>)
  linalg.exp ins(%x : memref<100xf32>) outs(%b : memref<100xf32>)
  %r = memref.alloc() : memref<100xf32>
  linalg.add ins(%a, %b : memref<100xf32>, memref<100xf32>) outs(%r : memref<100xf32>)
  return %r : memref<100xf32>
}

// -----

// A slot is reused only when it is large enough for every size: the buffer
// of s0 elements cannot take the slot of the first 4-element one (s0 may
// exceed 4), so it gets its own; the second 4-element buffer reuses slot 0.
// CHECK-LABEL: func.func @sizes
// (s0 * 4 bytes rounded up to 64: the common factor 4 cancels.)
// CHECK-SAME: arena_bytes = affine_map<()[s0] -> ((s0 ceildiv 16) * 64 + 64)>
// CHECK-SAME: slots = 2 : i64
// CHECK: %[[V0:.*]] = memref.view %{{.*}}[%[[Z:.*]]][] : memref<?xi8> to memref<4xf32>
// CHECK: memref.view %{{.*}}[%c64{{.*}}][%{{.*}}] : memref<?xi8> to memref<?xf32>
// CHECK: memref.view %{{.*}}[%[[Z]]][] : memref<?xi8> to memref<4xf32>
// expected-remark @+1 {{tgc-plan-memory: 3 intermediate buffers in 2 slots; arena arg0_dim0 ceildiv 16 * 64 + 64 bytes}}
func.func @sizes(%x: memref<?xf32>, %o: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc() : memref<4xf32>
  "test.use"(%a) : (memref<4xf32>) -> ()
  %b = memref.alloc(%d) : memref<?xf32>
  "test.use"(%b) : (memref<?xf32>) -> ()
  %c = memref.alloc() : memref<4xf32>
  "test.use"(%c) : (memref<4xf32>) -> ()
  return
}

// -----

// Sizes read back from views (a reshape and a slice of an intermediate)
// are the sizes those views were given: every intermediate is planned.
// CHECK-LABEL: func.func @sizes_through_views
// CHECK-SAME: arena_bytes = affine_map<()[s0] -> (s0 * 2048)>, buffers = 2 : i64
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64, tgc.arena} : memref<?xi8>
// CHECK-NOT: memref.alloc
// expected-remark @+1 {{tgc-plan-memory: 2 intermediate buffers in 2 slots; arena arg0_dim0 * 2048 bytes}}
func.func @sizes_through_views(%x: memref<?x384xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?x384xf32>
  %a = memref.alloc(%d) : memref<?x384xf32>
  "test.use"(%a) : (memref<?x384xf32>) -> ()
  %e = memref.expand_shape %a [[0], [1, 2]] output_shape [%d, 3, 128] : memref<?x384xf32> into memref<?x3x128xf32>
  %s = memref.subview %e[0, 0, 0] [%d, 1, 128] [1, 1, 1] : memref<?x3x128xf32> to memref<?x128xf32, strided<[384, 1]>>
  %c = memref.collapse_shape %e [[0, 1], [2]] : memref<?x3x128xf32> into memref<?x128xf32>
  %n = memref.dim %s, %c0 : memref<?x128xf32, strided<[384, 1]>>
  %b = memref.alloc(%n) : memref<?x128xf32>
  "test.use"(%b, %a, %c) : (memref<?x128xf32>, memref<?x384xf32>, memref<?x128xf32>) -> ()
  return
}

// -----

// The generics of one fusion group run as one GPU kernel
// (tgc-gpu-form-kernels), their ops interleaved row by row: a buffer used
// anywhere in the run is alive over all of it. %a is last read by the
// run's first op and %s is allocated inside the run: apart, they would
// share memory (2 slots), and the kernel would write %s over %a's rows it
// has yet to read. A copy between two generics of the group belongs to the
// run; %c, read only by the copy, stays alive over the run too.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @kernel_run
// CHECK-SAME: buffers = 4 : i64
// CHECK-SAME: slots = 4 : i64
// expected-remark @+1 {{tgc-plan-memory: 4 intermediate buffers in 4 slots; arena 1024 bytes}}
func.func @kernel_run(%x: memref<64xf32>, %o: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) attrs = {tgc.group = 0 : i64} {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %c = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<64xf32>) outs(%c : memref<64xf32>) attrs = {tgc.group = 1 : i64} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %b = memref.alloc() : memref<64xf32>
  memref.copy %c, %b : memref<64xf32> to memref<64xf32>
  %s = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%b : memref<64xf32>) outs(%s : memref<64xf32>) attrs = {tgc.group = 1 : i64} {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%s : memref<64xf32>) outs(%o : memref<64xf32>) attrs = {tgc.group = 1 : i64} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// Between two groups a copy is a kernel of its own and generics of
// different groups are different kernels: %a (last read by group 0's
// kernel) and %s (written by group 1's) share memory.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @kernels_apart
// CHECK-SAME: buffers = 3 : i64
// CHECK-SAME: slots = 2 : i64
// expected-remark @+1 {{tgc-plan-memory: 3 intermediate buffers in 2 slots; arena 512 bytes}}
func.func @kernels_apart(%x: memref<64xf32>, %o: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) attrs = {tgc.group = 0 : i64} {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<64xf32>
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  %s = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%b : memref<64xf32>) outs(%s : memref<64xf32>) attrs = {tgc.group = 1 : i64} {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%s : memref<64xf32>) outs(%o : memref<64xf32>) attrs = {tgc.group = 1 : i64} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
