// RUN: tgc-opt %s -tgc-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant {{.*}}dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi64>
// CHECK: return %[[C]]
func.func @constant() -> tensor<2x2xi64> {
  %c = tgc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  return %c : tensor<2x2xi64>
}

// -----

// CHECK-LABEL: func.func @full
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[V:.*]] = arith.constant {{.*}}1.500000e+00 : f16
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) {{.*}}: tensor<?x3xf16>
// CHECK: linalg.fill {{.*}}ins(%[[V]] : f16) outs(%[[E]] : tensor<?x3xf16>)
func.func @full(%n: index) -> tensor<?x3xf16> {
  %r = tgc.full 1.5 : f16 [%n] : tensor<?x3xf16>
  return %r : tensor<?x3xf16>
}

// -----

// iota: start + i * step, in f64 for f32 (torch.arange's accumulate type).
// CHECK-LABEL: func.func @iota
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) {{.*}}: tensor<?xf32>
// CHECK: %[[START:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[STEP:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: linalg.generic {{.*}}outs(%[[E]] : tensor<?xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[I64]] : i64 to f64
// CHECK: %[[M:.*]] = arith.mulf %[[STEP]], %[[F]] : f64
// CHECK: %[[A:.*]] = arith.addf %[[START]], %[[M]] : f64
// CHECK: arith.truncf %[[A]] : f64 to f32
func.func @iota(%n: index) -> tensor<?xf32> {
  %r = tgc.iota 0.5 : f32, 0.25 : f32 [%n] : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// (Longer than the 1024 elements a static integer iota folds to.)
// CHECK-LABEL: func.func @iota_i32
// CHECK: tensor.empty() {{.*}}: tensor<2000xi32>
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @iota_i32() -> tensor<2000xi32> {
  %r = tgc.iota 3 : i32, -2 : i32 : tensor<2000xi32>
  return %r : tensor<2000xi32>
}

// -----

// A pure collapse: collapse_shape. With the `?` inferred it is right by
// construction: no runtime check.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x2xf32>)
// CHECK-NOT: cf.assert
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] {{.*}}: tensor<?x4x2xf32> into tensor<?x8xf32>
// CHECK: return %[[R]]
func.func @reshape_collapse(%x: tensor<?x4x2xf32>) -> tensor<?x8xf32> {
  %r = tgc.reshape %x : tensor<?x4x2xf32> -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// With the size from an operand, the element count is checked first.
// CHECK-LABEL: func.func @reshape_collapse_operand
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %[[N:.*]]: index)
// CHECK: %[[D:.*]] = tensor.dim {{.*}}%[[X]]
// CHECK: %[[EQ:.*]] = arith.cmpi eq
// CHECK: cf.assert %[[EQ]], "tgc.reshape: the result shape does not have the input's element count"
// CHECK: tensor.collapse_shape %[[X]] {{\[}}[0, 1]] {{.*}}: tensor<?x4xf32> into tensor<?xf32>
func.func @reshape_collapse_operand(%x: tensor<?x4xf32>, %n: index) -> tensor<?xf32> {
  %r = tgc.reshape %x [%n] : tensor<?x4xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A pure expansion: expand_shape, the inferred `?` is the element count
// divided by the static sizes (24 / 6 here).
// CHECK-LABEL: func.func @reshape_expand_inferred
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>)
// CHECK: %[[N:.*]] = tensor.dim {{.*}}%[[X]]
// CHECK: %[[C6:.*]] = arith.constant {{.*}}6 : index
// CHECK: %[[Q:.*]] = arith.divui %{{.*}}, %[[C6]]
// CHECK: cf.assert
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0, 1, 2]] output_shape [2, %[[Q]], 3] {{.*}}: tensor<?xf32> into tensor<2x?x3xf32>
func.func @reshape_expand_inferred(%x: tensor<?xf32>) -> tensor<2x?x3xf32> {
  %r = tgc.reshape %x : tensor<?xf32> -> tensor<2x?x3xf32>
  return %r : tensor<2x?x3xf32>
}

// -----

// Static shapes that are neither: tensor.reshape with a shape tensor, and
// no runtime check.
// CHECK-LABEL: func.func @reshape_general
// CHECK-NOT: cf.assert
// CHECK: %[[S:.*]] = tensor.from_elements %{{.*}}, %{{.*}} {{.*}}: tensor<2xindex>
// CHECK: tensor.reshape %{{.*}}(%[[S]]) {{.*}}: (tensor<2x6xf32>, tensor<2xindex>) -> tensor<3x4xf32>
func.func @reshape_general(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %r = tgc.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// Sizes from operands: the element count is checked at run time.
// CHECK-LABEL: func.func @reshape_operands
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[N:.*]]: index, %[[M:.*]]: index)
// CHECK: %[[D0:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: %[[D1:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: %[[EQ:.*]] = arith.cmpi eq
// CHECK: cf.assert %[[EQ]]
// CHECK: %[[S:.*]] = tensor.from_elements %[[N]], %[[M]] {{.*}}: tensor<2xindex>
// CHECK: tensor.reshape %[[X]](%[[S]]) {{.*}}-> tensor<?x?xf32>
func.func @reshape_operands(%x: tensor<?x?xf32>, %n: index, %m: index) -> tensor<?x?xf32> {
  %r = tgc.reshape %x [%n, %m] : tensor<?x?xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Result sizes that are the input's own sizes pair those dims: several `?`
// sizes still give expand_shape / collapse_shape (no shape tensor), and
// when every `?` is paired and the static parts agree, no run-time check.
// CHECK-LABEL: func.func @reshape_expand_paired
// CHECK-NOT: cf.assert
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3, 4]] output_shape [%{{.*}}, %{{.*}}, 3, 4, 32]{{.*}} : tensor<?x?x384xf32> into tensor<?x?x3x4x32xf32>
// CHECK-NOT: tensor.reshape
func.func @reshape_expand_paired(%x: tensor<?x?x384xf32>) -> tensor<?x?x3x4x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x384xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x384xf32>
  %r = tgc.reshape %x [%d0, %d1] : tensor<?x?x384xf32> -> tensor<?x?x3x4x32xf32>
  return %r : tensor<?x?x3x4x32xf32>
}

// -----

// `qkv[0]`: a unit dim dropped between paired `?` sizes joins the next
// pair's group.
// CHECK-LABEL: func.func @reshape_collapse_paired
// CHECK-NOT: cf.assert
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]]{{.*}} : tensor<1x?x4x?x32xf32> into tensor<?x4x?x32xf32>
func.func @reshape_collapse_paired(%x: tensor<1x?x4x?x32xf32>) -> tensor<?x4x?x32xf32> {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %d1 = tensor.dim %x, %c1 : tensor<1x?x4x?x32xf32>
  %d3 = tensor.dim %x, %c3 : tensor<1x?x4x?x32xf32>
  %r = tgc.reshape %x [%d1, %d3] : tensor<1x?x4x?x32xf32> -> tensor<?x4x?x32xf32>
  return %r : tensor<?x4x?x32xf32>
}

// -----

// One pair and one `?` that is not: the unpaired segment keeps the run-time
// element count check.
// CHECK-LABEL: func.func @reshape_partly_paired
// CHECK: cf.assert
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]]{{.*}} : tensor<?x?xf32> into tensor<?x?x4xf32>
func.func @reshape_partly_paired(%x: tensor<?x?xf32>, %n: index) -> tensor<?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %r = tgc.reshape %x [%d0, %n] : tensor<?x?xf32> -> tensor<?x?x4xf32>
  return %r : tensor<?x?x4xf32>
}

// -----

// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[X:.*]]: tensor<4x?x3xf32>)
// CHECK: %[[D:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) {{.*}}: tensor<3x4x?xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<4x?x3xf32>) outs(%[[E]] : tensor<3x4x?xf32>) permutation = [2, 0, 1]
func.func @permute(%x: tensor<4x?x3xf32>) -> tensor<3x4x?xf32> {
  %r = tgc.permute %x [2, 0, 1] : tensor<4x?x3xf32> -> tensor<3x4x?xf32>
  return %r : tensor<3x4x?xf32>
}

// -----

// Only new leading dims: linalg.broadcast; the new `?` is the operand.
// CHECK-LABEL: func.func @expand_leading
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[B:.*]]: index)
// CHECK: %[[D:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: %[[E:.*]] = tensor.empty(%[[B]], %[[D]]) {{.*}}: tensor<?x?x8xf32>
// CHECK: linalg.broadcast ins(%[[X]] : tensor<?x8xf32>) outs(%[[E]] : tensor<?x?x8xf32>) dimensions = [0]
func.func @expand_leading(%x: tensor<?x8xf32>, %b: index) -> tensor<?x?x8xf32> {
  %r = tgc.expand %x [%b] : tensor<?x8xf32> -> tensor<?x?x8xf32>
  return %r : tensor<?x?x8xf32>
}

// -----

// A static 1 stretches: a generic reading it at 0; a `?` input dim keeps
// its size.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @expand_stretch
// CHECK-SAME: (%[[X:.*]]: tensor<1x?xf32>, %[[B:.*]]: index)
// CHECK: %[[D:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: %[[E:.*]] = tensor.empty(%[[B]], %[[D]]) {{.*}}: tensor<?x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]]
func.func @expand_stretch(%x: tensor<1x?xf32>, %b: index) -> tensor<?x?xf32> {
  %r = tgc.expand %x [%b] : tensor<1x?xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A static size: Python's clamping at compile time.
// CHECK-LABEL: func.func @slice_static
// CHECK: tensor.extract_slice %{{.*}}[0, 7] [3, 2] [1, 2] {{.*}}: tensor<3x10xf32> to tensor<3x2xf32>
func.func @slice_static(%x: tensor<3x10xf32>) -> tensor<3x2xf32> {
  %r = tgc.slice %x dim = 1 start = -3 end = 100 step = 2 : tensor<3x10xf32> -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// An empty static slice is a tensor.empty (extract_slice rejects the offset).
// CHECK-LABEL: func.func @slice_static_empty
// CHECK-NOT: tensor.extract_slice
// CHECK: tensor.empty() {{.*}}: tensor<3x0xf32>
func.func @slice_static_empty(%x: tensor<3x10xf32>) -> tensor<3x0xf32> {
  %r = tgc.slice %x dim = 1 start = 12 end = 20 step = 1 : tensor<3x10xf32> -> tensor<3x0xf32>
  return %r : tensor<3x0xf32>
}

// -----

// A `?` size: start = min(max(-3 + n, 0)... ), end = min(8, n), length =
// max(end - start, 0) ceildiv step, all at run time.
// CHECK-LABEL: func.func @slice_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<3x?xf32>)
// CHECK: %[[N:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: %[[CM3:.*]] = arith.constant {{.*}}-3 : index
// CHECK: %[[S0:.*]] = arith.addi %[[CM3]], %[[N]]
// CHECK: %[[S:.*]] = arith.maxsi %[[S0]], %{{.*}}
// CHECK: %[[C8:.*]] = arith.constant {{.*}}8 : index
// CHECK: %[[E:.*]] = arith.minsi %[[C8]], %[[N]]
// CHECK: %[[L0:.*]] = arith.subi %[[E]], %[[S]]
// CHECK: %[[L:.*]] = arith.maxsi %[[L0]], %{{.*}}
// CHECK: %[[CNT:.*]] = arith.ceildivui %[[L]], %{{.*}}
// CHECK: %[[OFF:.*]] = arith.select %{{.*}}, %{{.*}}, %[[S]]
// CHECK: tensor.extract_slice %[[X]][0, %[[OFF]]] [3, %[[CNT]]] [1, 2] {{.*}}: tensor<3x?xf32> to tensor<3x?xf32>
func.func @slice_dynamic(%x: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %r = tgc.slice %x dim = 1 start = -3 end = 8 step = 2 : tensor<3x?xf32> -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// -----

// Few inputs (up to 8): tensor.empty and a chain of insert_slice at running
// offsets, which empty-tensor elimination turns into each producer writing
// its slice (no copy per input).
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<?x3xf32>)
// CHECK: %[[N:.*]] = tensor.dim {{.*}}%[[B]], %{{.*}}
// CHECK: %[[TOTAL:.*]] = arith.addi %{{.*}}, %[[N]]
// CHECK: %[[E:.*]] = tensor.empty(%[[TOTAL]]) {{.*}}: tensor<?x3xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][2, 0] [%[[N]], 3] [1, 1]
// CHECK: return %[[I1]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %r = tgc.concat %a, %b dim = 0 : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// An input dynamic where the result is static (another input fixes the
// size) is inserted with its own sizes, as insert_slice's verifier requires
// (the result's static size failed to verify: a KV cache's torch.cat).
// CHECK-LABEL: func.func @concat_dynamic_input
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<?x?xf32>)
// CHECK-DAG: %[[N:.*]] = tensor.dim {{.*}}%[[B]], %c0
// CHECK-DAG: %[[M:.*]] = tensor.dim {{.*}}%[[B]], %c1
// CHECK: tensor.insert_slice %[[B]] into %{{.*}}[2, 0] [%[[N]], %[[M]]] [1, 1] {{.*}}: tensor<?x?xf32> into tensor<?x3xf32>
func.func @concat_dynamic_input(%a: tensor<2x3xf32>, %b: tensor<?x?xf32>) -> tensor<?x3xf32> {
  %r = tgc.concat %a, %b dim = 0 : (tensor<2x3xf32>, tensor<?x?xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// More inputs: a buffer and a copy of each input into its slice (linear in
// the number of inputs to bufferize; a chain of insert_slice was not: 150
// inputs took 15 s), offsets as running sums.
// CHECK-LABEL: func.func @concat_many
// CHECK: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64{{.*}}} : memref<2x27xf32>
// CHECK: %[[S0:.*]] = memref.subview %[[BUF]][0, 0] [2, 3] [1, 1]
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %[[S0]]
// CHECK: %[[S8:.*]] = memref.subview %[[BUF]][0, 24] [2, 3] [1, 1]
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %[[S8]]
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[BUF]] restrict writable
// CHECK: return %[[R]]
func.func @concat_many(%a: tensor<2x3xf32>) -> tensor<2x27xf32> {
  %r = tgc.concat %a, %a, %a, %a, %a, %a, %a, %a, %a dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x27xf32>
  return %r : tensor<2x27xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] {{.*}}: tensor<1x?x1xf32> into tensor<?xf32>
func.func @squeeze(%x: tensor<1x?x1xf32>) -> tensor<?xf32> {
  %r = tgc.squeeze %x dims [0, 2] : tensor<1x?x1xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @unsqueeze
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>)
// CHECK: %[[D:.*]] = tensor.dim {{.*}}%[[X]], %{{.*}}
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, %[[D]], 1] {{.*}}: tensor<4x?xf32> into tensor<4x?x1xf32>
func.func @unsqueeze(%x: tensor<4x?xf32>) -> tensor<4x?x1xf32> {
  %r = tgc.unsqueeze %x dim = 2 : tensor<4x?xf32> -> tensor<4x?x1xf32>
  return %r : tensor<4x?x1xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK: %[[V:.*]] = arith.constant {{.*}}-1 : i64
// CHECK: tensor.pad %{{.*}} low[1, 0] high[2, 3]
// CHECK: tensor.yield %[[V]] : i64
// CHECK: tensor<?x4xi64> to tensor<?x7xi64>
func.func @pad(%x: tensor<?x4xi64>) -> tensor<?x7xi64> {
  %r = tgc.pad %x low [1, 0] high [2, 3] value -1 : i64 : tensor<?x4xi64> -> tensor<?x7xi64>
  return %r : tensor<?x7xi64>
}
