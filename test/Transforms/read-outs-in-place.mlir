// RUN: tgc-opt %s --tgc-read-outs-in-place -split-input-file | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// p.add_(g): the copy of p taken on entry is read only by the kernel that
// writes p at the same points: the kernel reads p itself.

// CHECK-LABEL: func.func @in_place
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : memref<16xf32>, memref<16xf32>) outs(%arg0 : memref<16xf32>)
func.func @in_place(%p: memref<16xf32>, %g: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %p, %a : memref<16xf32> to memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %g : memref<16xf32>, memref<16xf32>) outs(%p : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Two kernels read the copy: the second would read p after the first
// overwrote it. The copy stays.

// CHECK-LABEL: func.func @two_readers
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: memref.copy %arg0, %[[A]]
// CHECK: ins(%[[A]], %arg1
// CHECK: ins(%[[A]] :
func.func @two_readers(%p: memref<16xf32>, %g: memref<16xf32>, %r: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %p, %a : memref<16xf32> to memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %g : memref<16xf32>, memref<16xf32>) outs(%p : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<16xf32>) outs(%r : memref<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Another op writes p between the copy and its reader: the copy stays.

// CHECK-LABEL: func.func @written_between
// CHECK: memref.copy %arg0
// CHECK: linalg.fill
func.func @written_between(%p: memref<16xf32>, %g: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %p, %a : memref<16xf32> to memref<16xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<16xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %g : memref<16xf32>, memref<16xf32>) outs(%g : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// p.copy_(p.t() + 1): the kernel writes p at other points than it reads
// (a thread would read an element another thread already wrote). The
// copy stays.

// CHECK-LABEL: func.func @transposed_write
// CHECK: memref.copy %arg0
func.func @transposed_write(%p: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  memref.copy %p, %a : memref<8x8xf32> to memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #tr], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%p : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %x, %one : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A reduction over the copy: not an elementwise kernel. The copy stays.

// CHECK-LABEL: func.func @reduction
// CHECK: memref.copy %arg0
func.func @reduction(%p: memref<8x8xf32>, %s: memref<8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  memref.copy %p, %a : memref<8x8xf32> to memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x8xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.addf %x, %o : f32
    linalg.yield %t : f32
  }
  return
}
