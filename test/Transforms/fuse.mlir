// RUN: tgc-opt %s -tgc-fuse | FileCheck %s
// The fused IR is valid and round-trips.
// RUN: tgc-opt %s -tgc-fuse | tgc-opt | FileCheck %s
// RUN: tgc-opt %s -tgc-fuse="permutes=1" | FileCheck %s --check-prefix=PERM
// RUN: tgc-opt %s -tgc-fuse="reshapes=1" | FileCheck %s --check-prefix=RESHAPE

// A vertical chain with a broadcast (bias add): one elementwise group.
// CHECK-LABEL: func.func @chain
// CHECK: %[[G:.*]] = tgc.fusion_group "elementwise" ins(%arg0, %arg1 : tensor<?x64xf32>, tensor<64xf32>)
// CHECK: tgc.add
// CHECK-NEXT: tgc.relu
// CHECK-NEXT: tgc.mul
// CHECK-NEXT: tgc.yield
// CHECK: return %[[G]]

func.func @chain(%x: tensor<?x64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %0 = tgc.add %x, %b : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  %1 = tgc.relu %0 : tensor<?x64xf32>
  %2 = tgc.mul %1, %1 : tensor<?x64xf32>
  return %2 : tensor<?x64xf32>
}

// Softmax followed by the entropy -(p * log(p + eps)).sum(-1): one row-wise
// group (each row is independent), the small constant an input.
// CHECK-LABEL: func.func @entropy
// CHECK: tgc.constant
// CHECK-NEXT: tgc.fusion_group "rows"
// CHECK: tgc.softmax
// CHECK: tgc.log
// CHECK: tgc.sum
// CHECK-NEXT: tgc.neg
// CHECK-NEXT: tgc.yield

func.func @entropy(%x: tensor<?x1000xf32>) -> tensor<?xf32> {
  %p = tgc.softmax %x dim = 1 : tensor<?x1000xf32>
  %eps = tgc.constant dense<1.0e-8> : tensor<f32>
  %q = tgc.add %p, %eps : tensor<?x1000xf32>, tensor<f32> -> tensor<?x1000xf32>
  %l = tgc.log %q : tensor<?x1000xf32>
  %m = tgc.mul %p, %l : tensor<?x1000xf32>
  %s = tgc.sum %m dims [1] : tensor<?x1000xf32> -> tensor<?xf32>
  %e = tgc.neg %s : tensor<?xf32>
  return %e : tensor<?xf32>
}

// Layer norm with its epilogue.
// CHECK-LABEL: func.func @ln_gelu
// CHECK: tgc.fusion_group "rows"
// CHECK: tgc.layer_norm
// CHECK-NEXT: tgc.gelu

func.func @ln_gelu(%x: tensor<?x768xf32>, %w: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<?x768xf32> {
  %y = tgc.layer_norm %x weight(%w : tensor<768xf32>) bias(%b : tensor<768xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x768xf32>
  %g = tgc.gelu %y : tensor<?x768xf32>
  return %g : tensor<?x768xf32>
}

// Horizontal: two reductions of one input over the same rows, one group
// with two results.
// CHECK-LABEL: func.func @siblings
// CHECK: %[[G:.*]]:2 = tgc.fusion_group "rows" ins(%arg0 : tensor<?x512xf32>)
// CHECK: tgc.mean
// CHECK-NEXT: tgc.var
// CHECK-NEXT: tgc.yield
// CHECK: return %[[G]]#0, %[[G]]#1

func.func @siblings(%x: tensor<?x512xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %m = tgc.mean %x dims [1] : tensor<?x512xf32> -> tensor<?xf32>
  %v = tgc.var %x dims [1] : tensor<?x512xf32> -> tensor<?xf32>
  return %m, %v : tensor<?xf32>, tensor<?xf32>
}

// Matmul epilogue: bias (inside linear), activation and residual.
// CHECK-LABEL: func.func @linear_relu
// CHECK: tgc.fusion_group "matmul"
// CHECK: tgc.linear
// CHECK-NEXT: tgc.relu
// CHECK-NEXT: tgc.add

func.func @linear_relu(%x: tensor<?x256xf32>, %w: tensor<128x256xf32>, %b: tensor<128xf32>, %r: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %y = tgc.linear %x, %w, %b : tensor<?x256xf32>, tensor<128x256xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %a = tgc.relu %y : tensor<?x128xf32>
  %s = tgc.add %a, %r : tensor<?x128xf32>
  return %s : tensor<?x128xf32>
}

// Convolution epilogue: a ResNet block's residual add and ReLU are
// computed where the convolution adds its bias; the elementwise producer
// of its input (a scaling) stays out (an im2col would recompute it per
// window element), and so does a second convolution.
// CHECK-LABEL: func.func @conv_residual_relu
// CHECK: %[[S:.*]] = tgc.mul
// CHECK: tgc.fusion_group "convolution" ins(%[[S]],
// CHECK: tgc.conv2d
// CHECK-NEXT: tgc.add
// CHECK-NEXT: tgc.relu
// CHECK-NEXT: tgc.yield
// CHECK: tgc.conv2d
func.func @conv_residual_relu(%x: tensor<?x8x16x16xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8xf32>, %k: tensor<f32>) -> tensor<?x8x16x16xf32> {
  %s = tgc.mul %x, %k : tensor<?x8x16x16xf32>, tensor<f32> -> tensor<?x8x16x16xf32>
  %y = tgc.conv2d %s, %w bias(%b : tensor<8xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x8x16x16xf32>, tensor<8x8x3x3xf32> -> tensor<?x8x16x16xf32>
  %r = tgc.add %y, %x : tensor<?x8x16x16xf32>, tensor<?x8x16x16xf32> -> tensor<?x8x16x16xf32>
  %a = tgc.relu %r : tensor<?x8x16x16xf32>
  %z = tgc.conv2d %a, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x8x16x16xf32>, tensor<8x8x3x3xf32> -> tensor<?x8x16x16xf32>
  return %z : tensor<?x8x16x16xf32>
}

// Shape annotations of the frontend (tgc_sym.bind) are not users that
// keep a value out of a group: the matmul still takes its epilogue, and
// the annotation of the value that moved inside the group is dropped.
// CHECK-LABEL: func.func @annotated
// CHECK: tgc_sym.bind %arg0
// CHECK-NEXT: %[[G:.*]] = tgc.fusion_group "matmul"
// CHECK: tgc.linear
// CHECK-NEXT: tgc.gelu
// CHECK-NOT: tgc_sym.bind %{{.*}} [%{{.*}}, 128]
// CHECK: tgc_sym.bind %[[G]]
func.func @annotated(%x: tensor<?x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> tensor<?x128xf32> {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  tgc_sym.bind %x [%s0, 64] : tensor<?x64xf32>
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  tgc_sym.bind %h [%s0, 128] : tensor<?x128xf32>
  %a = tgc.gelu %h : tensor<?x128xf32>
  tgc_sym.bind %a [%s0, 128] : tensor<?x128xf32>
  return %a : tensor<?x128xf32>
}

// A multi-pass row op (layer_norm reads its input for the mean, the
// variance and the normalization) after another one (softmax) over the
// same rows: one group (tgc-form-kernels computes the softmax row once per
// iteration), with the GELU epilogue.
// CHECK-LABEL: func.func @softmax_then_layer_norm
// CHECK: tgc.fusion_group "rows" ins(%arg0, %arg1, %arg2
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tgc.softmax
// CHECK-NEXT: tgc.layer_norm
// CHECK-NEXT: tgc.gelu
func.func @softmax_then_layer_norm(%x: tensor<?x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<?x1024xf32>
  %n = tgc.layer_norm %s weight(%w : tensor<1024xf32>) bias(%b : tensor<1024xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x1024xf32>
  %g = tgc.gelu %n approximate = tanh : tensor<?x1024xf32>
  return %g : tensor<?x1024xf32>
}

// Must not fuse: a column sum broadcast back over the rows needs every row
// before any division (two passes), and a matmul never absorbs another.
// CHECK-LABEL: func.func @no_fuse
// CHECK-NOT: tgc.fusion_group
// CHECK: return

func.func @no_fuse(%x: tensor<8x?xf32>, %w: tensor<16x16xf32>) -> (tensor<8x?xf32>, tensor<16x16xf32>) {
  %c = tgc.sum %x dims [0] keepdim : tensor<8x?xf32> -> tensor<1x?xf32>
  %d = tgc.div %x, %c : tensor<8x?xf32>, tensor<1x?xf32> -> tensor<8x?xf32>
  %m1 = tgc.matmul %w, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %m2 = tgc.matmul %m1, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %d, %m2 : tensor<8x?xf32>, tensor<16x16xf32>
}

// Two groups that would each need the other's result (fuzzer seed 919448):
// {ceil, sum, sub} reads the softmax, and {softmax, maximum} would read the
// sum. A path leaves a group at one member and enters it at another, so
// legality is checked between whole groups; the softmax stays out of the
// maximum's group and the result is acyclic (the pipeline used to fail with
// "fusion created a cycle").
// CHECK-LABEL: func.func @no_cycle_through_a_third_group
// CHECK:      %[[S:.*]] = tgc.softmax %arg0
// CHECK:      %[[G:.*]]:2 = tgc.fusion_group "reduction" ins(%arg0, %[[S]] :
// CHECK:        tgc.ceil
// CHECK:        tgc.sum
// CHECK:        tgc.sub
// CHECK:      tgc.maximum %[[G]]#0, %[[S]]
// CHECK-NOT:  tgc.fusion_group
// CHECK:      return
func.func @no_cycle_through_a_third_group(%a: tensor<33x33xf32>) -> (tensor<33x33xf32>, tensor<33x33xf32>) {
  %s = tgc.softmax %a dim = 1 : tensor<33x33xf32>
  %c = tgc.ceil %a : tensor<33x33xf32>
  %r = tgc.sum %c dims [0] : tensor<33x33xf32> -> tensor<33xf32>
  %d = tgc.sub %c, %s : tensor<33x33xf32>, tensor<33x33xf32> -> tensor<33x33xf32>
  %m = tgc.maximum %r, %s : tensor<33xf32>, tensor<33x33xf32> -> tensor<33x33xf32>
  return %m, %d : tensor<33x33xf32>, tensor<33x33xf32>
}

// A model-shaped fuzz graph (fuzz-graphs.py --models 1, seed 102), reduced:
// a path can enter a group formed earlier at a member late in program order
// and leave it at an earlier member, so the cycle check cannot stop at the
// target's position in the block (it did, and the pipeline failed with
// "fusion created a cycle"). The fused function is valid IR and
// round-trips.
// CHECK-LABEL: func.func @backward_group
// CHECK:         return
func.func @backward_group(%a17: tensor<f32>, %a18: tensor<10x4xf32>, %a20: tensor<5xf32>, %a24: tensor<f32>, %a30: tensor<1x5xf32>, %a31: tensor<1x5x1xf32>, %rm1: tensor<f32>, %rm4: tensor<f32>, %rm62: tensor<5xf32>, %rm96: tensor<i1>, %rm107: tensor<5xi1>, %rm126: tensor<3x3x16xf32>, %rm133: tensor<1x5xf32>, %rm135: tensor<3x3x16xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<3x3x16xf32>, tensor<1x1x1xf32>) {
  %v98 = tgc.where %rm96, %rm62, %a17 : tensor<i1>, tensor<5xf32>, tensor<f32> -> tensor<5xf32>
  %v100 = tgc.concat %v98, %rm62 dim = 0 : (tensor<5xf32>, tensor<5xf32>) -> tensor<10xf32>
  %v101 = tgc.clamp %v100 min -1.0 max 2.0 : tensor<10xf32>
  %v102 = tgc.matmul %v101, %a18 : tensor<10xf32>, tensor<10x4xf32> -> tensor<4xf32>
  %v103 = tgc.mul %v102, %rm1 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %v104 = tgc.log_softmax %v103 dim = 0 : tensor<4xf32>
  %v105 = tgc.mul %v104, %rm1 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %v109 = tgc.where %rm107, %a20, %v98 : tensor<5xi1>, tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
  %v115 = tgc.mean %v109 dims [0] : tensor<5xf32> -> tensor<f32>
  %v119 = tgc.sub %v115, %a24 : tensor<f32>, tensor<f32> -> tensor<f32>
  %v137 = tgc.mul %rm135, %rm1 : tensor<3x3x16xf32>, tensor<f32> -> tensor<3x3x16xf32>
  %v138 = tgc.layer_norm %rm133 weight(%a30 : tensor<1x5xf32>) normalized_rank = 2 eps = 1.000000e-01 : tensor<1x5xf32>
  %v139 = tgc.mul %v138, %rm4 : tensor<1x5xf32>, tensor<f32> -> tensor<1x5xf32>
  %v143 = tgc.mul %v139, %rm1 : tensor<1x5xf32>, tensor<f32> -> tensor<1x5xf32>
  %v144 = tgc.matmul %v143, %a31 : tensor<1x5xf32>, tensor<1x5x1xf32> -> tensor<1x1x1xf32>
  %v147 = tgc.cmp le, %v137, %rm1 : tensor<3x3x16xf32>, tensor<f32> -> tensor<3x3x16xi1>
  %v148 = tgc.where %v147, %v144, %a24 : tensor<3x3x16xi1>, tensor<1x1x1xf32>, tensor<f32> -> tensor<3x3x16xf32>
  %v152 = tgc.add %rm126, %v137 : tensor<3x3x16xf32>, tensor<3x3x16xf32> -> tensor<3x3x16xf32>
  %v153 = tgc.mul %v152, %rm4 : tensor<3x3x16xf32>, tensor<f32> -> tensor<3x3x16xf32>
  %v154 = tgc.mul %v153, %rm1 : tensor<3x3x16xf32>, tensor<f32> -> tensor<3x3x16xf32>
  %v155 = tgc.amax %v154 dims [0, 1, 2] keepdim : tensor<3x3x16xf32> -> tensor<1x1x1xf32>
  return %v105, %v119, %v148, %v155 : tensor<4xf32>, tensor<f32>, tensor<3x3x16xf32>, tensor<1x1x1xf32>
}


// Attention's output zeroed where a row has no key (a where), then the
// head merge (a permute): without `permutes` the permute is no group
// member; with it (the GPU pipeline) the where and the permute are one
// elementwise group, while a permute that a matmul reads stays alone (the
// GEMM reads the transpose itself) and a permute of a matmul's output is
// no epilogue.
// CHECK-LABEL: func.func @merge_heads
// CHECK-NOT: tgc.fusion_group
// PERM-LABEL: func.func @merge_heads
// PERM-NEXT: tgc.matmul
// PERM-NEXT: tgc.permute
// PERM-NEXT: tgc.constant
// PERM-NEXT: tgc.fusion_group "elementwise"
// PERM-NEXT: ^bb0
// PERM-NEXT: tgc.where
// PERM-NEXT: tgc.permute
// PERM-NEXT: tgc.yield
// PERM: tgc.permute %arg1 [0, 1, 3, 2]
// PERM-NEXT: tgc.matmul
func.func @merge_heads(%a: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %keep: tensor<2x1x8x1xi1>, %sq: tensor<2x4x16x16xf32>) -> (tensor<2x8x4x16xf32>, tensor<2x4x8x8xf32>, tensor<2x4x16x8xf32>) {
  %m = tgc.matmul %a, %sq : tensor<2x4x8x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x8x16xf32>
  %t = tgc.permute %m [0, 1, 3, 2] : tensor<2x4x8x16xf32> -> tensor<2x4x16x8xf32>
  %z = tgc.constant dense<0.0> : tensor<f32>
  %w = tgc.where %keep, %a, %z : tensor<2x1x8x1xi1>, tensor<2x4x8x16xf32>, tensor<f32> -> tensor<2x4x8x16xf32>
  %p = tgc.permute %w [0, 2, 1, 3] : tensor<2x4x8x16xf32> -> tensor<2x8x4x16xf32>
  %kt = tgc.permute %k [0, 1, 3, 2] : tensor<2x4x8x16xf32> -> tensor<2x4x16x8xf32>
  %s = tgc.matmul %a, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
  return %p, %s, %t : tensor<2x8x4x16xf32>, tensor<2x4x8x8xf32>, tensor<2x4x16x8xf32>
}

// GPT-2's residual after the view of its addmm: with `reshapes` the add
// moves above the reshape (the residual reshaped instead), into the
// matmul's group as its epilogue; a reshape with another reader stays.
// CHECK-LABEL: func.func @residual_after_view
// CHECK: tgc.fusion_group "matmul"
// CHECK: tgc.reshape
// CHECK: tgc.add
// RESHAPE-LABEL: func.func @residual_after_view
// RESHAPE: %[[R:.*]] = tgc.reshape %arg3 : tensor<2x4x8xf32> -> tensor<8x8xf32>
// RESHAPE: %[[G:.*]] = tgc.fusion_group "matmul" ins(%arg0, %arg1, %arg2, %[[R]] :
// RESHAPE: tgc.matmul
// RESHAPE-NEXT: tgc.add
// RESHAPE-NEXT: tgc.add %{{.*}}, %{{.*}} : tensor<8x8xf32>
// RESHAPE: tgc.reshape %[[G]] : tensor<8x8xf32> -> tensor<2x4x8xf32>
// RESHAPE: %[[KEPT:.*]] = tgc.reshape %{{.*}} : tensor<8x8xf32> -> tensor<2x4x8xf32>
// RESHAPE: tgc.add %[[KEPT]], %arg3
func.func @residual_after_view(%a: tensor<8x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %m = tgc.matmul %a, %w : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %h = tgc.add %m, %b : tensor<8x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  %v = tgc.reshape %h : tensor<8x8xf32> -> tensor<2x4x8xf32>
  %r = tgc.add %v, %x : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %m2 = tgc.matmul %a, %w : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %v2 = tgc.reshape %m2 : tensor<8x8xf32> -> tensor<2x4x8xf32>
  %r2 = tgc.add %v2, %x : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %r, %r2, %v2 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// A permute is elementwise work only beside elementwise work: after a
// softmax along the last dim it would read across rows, and the rows
// group would no longer be one row kernel; it stays out.
// PERM-LABEL: func.func @softmax_then_permute
// PERM: tgc.fusion_group "rows"
// PERM-NEXT: ^bb0
// PERM-NEXT: tgc.exp
// PERM-NEXT: tgc.softmax
// PERM-NEXT: tgc.yield
// PERM: tgc.permute
func.func @softmax_then_permute(%x: tensor<4x8x64xf32>) -> tensor<8x4x64xf32> {
  %e = tgc.exp %x : tensor<4x8x64xf32>
  %s = tgc.softmax %e dim = 2 : tensor<4x8x64xf32>
  %p = tgc.permute %s [1, 0, 2] : tensor<4x8x64xf32> -> tensor<8x4x64xf32>
  return %p : tensor<8x4x64xf32>
}

// The product (or its bias add) read elsewhere too: the add cannot join
// the GEMM's group, so the reshape stays where it is.
// RESHAPE-LABEL: func.func @product_read_twice
// RESHAPE: %[[V:.*]] = tgc.reshape %{{.*}} : tensor<8x8xf32> -> tensor<2x4x8xf32>
// RESHAPE: tgc.add %[[V]], %arg3
func.func @product_read_twice(%a: tensor<8x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<8x8xf32>) {
  %m = tgc.matmul %a, %w : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %h = tgc.add %m, %b : tensor<8x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  %v = tgc.reshape %h : tensor<8x8xf32> -> tensor<2x4x8xf32>
  %r = tgc.add %v, %x : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %r, %h : tensor<2x4x8xf32>, tensor<8x8xf32>
}

// A permute read by a matmul through a reshape (keys transposed, batch
// dims merged) stays alone too, even after an elementwise producer: the
// GEMM reads it transposed.
// PERM-LABEL: func.func @permute_reshape_bmm
// PERM: tgc.fusion_group "elementwise"
// PERM-NEXT: ^bb0
// PERM-NEXT: tgc.exp
// PERM-NEXT: tgc.neg
// PERM-NEXT: tgc.yield
// PERM: tgc.permute
// PERM-NEXT: tgc.reshape
// PERM-NEXT: tgc.bmm
func.func @permute_reshape_bmm(%q: tensor<8x4x16xf32>, %k: tensor<2x4x4x16xf32>) -> (tensor<8x4x4xf32>, tensor<2x4x4x16xf32>) {
  %e = tgc.exp %k : tensor<2x4x4x16xf32>
  %t = tgc.permute %e [0, 1, 3, 2] : tensor<2x4x4x16xf32> -> tensor<2x4x16x4xf32>
  %r = tgc.reshape %t : tensor<2x4x16x4xf32> -> tensor<8x16x4xf32>
  %s = tgc.bmm %q, %r : tensor<8x4x16xf32>, tensor<8x16x4xf32> -> tensor<8x4x4xf32>
  %n = tgc.neg %e : tensor<2x4x4x16xf32>
  return %s, %n : tensor<8x4x4xf32>, tensor<2x4x4x16xf32>
}
