// RUN: tgc-opt %s -tgc-to-linalg -split-input-file | FileCheck %s

// Stable softmax over any dim: the maximum, the sum of exp(x - max), then
// exp(x - max) / sum.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @softmax_middle
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x4x5xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant {{.*}}0xFF800000 : f32
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<?x4x5xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<?x4x5xf32>, tensor<?x5xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]], #[[KEPT]], #[[ID]]], {{.*}} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<?x4x5xf32>, tensor<?x5xf32>, tensor<?x5xf32>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[E:.*]] = math.exp %[[D]]
// CHECK: arith.divf %[[E]]
func.func @softmax_middle(%x: tensor<?x4x5xf32>) -> tensor<?x4x5xf32> {
  %p = tgc.softmax %x dim = 1 : tensor<?x4x5xf32>
  return %p : tensor<?x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @log_softmax_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[L:.*]] = math.log
// CHECK: arith.subf %[[D]], %[[L]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @log_softmax_f16(%x: tensor<2x?xf16>) -> tensor<2x?xf16> {
  %p = tgc.log_softmax %x dim = 1 : tensor<2x?xf16>
  return %p : tensor<2x?xf16>
}

// -----

// layer_norm: mean, biased variance (two passes), 1 / sqrt(var + eps),
// then (x - mean) * rstd * weight + bias over the trailing dims.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[NORM:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[SUM:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?xf32>)
// CHECK: %[[M2:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction", "reduction"]} ins(%{{.*}}, %[[MEAN]] : tensor<?x3x8xf32>, tensor<?xf32>)
// CHECK: %[[EPS:.*]] = arith.constant {{.*}}9.99999974E-6 : f32
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[M2]] : tensor<?xf32>)
// CHECK: arith.addf %{{.*}}, %[[EPS]]
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]], #[[KEPT]], #[[NORM]], #[[NORM]], #[[ID]]], {{.*}} ins(%{{.*}}, %[[MEAN]], %[[RSTD]], %{{.*}}, %{{.*}} : tensor<?x3x8xf32>, tensor<?xf32>, tensor<?xf32>, tensor<3x8xf32>, tensor<3x8xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @layer_norm(%x: tensor<?x3x8xf32>, %w: tensor<3x8xf32>, %b: tensor<3x8xf32>) -> tensor<?x3x8xf32> {
  %y = tgc.layer_norm %x weight(%w : tensor<3x8xf32>) bias(%b : tensor<3x8xf32>) normalized_rank = 2 eps = 1.0e-05 : tensor<?x3x8xf32>
  return %y : tensor<?x3x8xf32>
}

// -----

// rms_norm: eps defaults to the machine epsilon of the element type (bf16:
// 2^-7), computed in f32.
// CHECK-LABEL: func.func @rms_norm_default_eps
// CHECK: %[[EPS:.*]] = arith.constant {{.*}}7.812500e-03 : f32
// CHECK: %[[SQ:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]}
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<?xf32>)
// CHECK: arith.addf %{{.*}}, %[[EPS]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[RSTD]], %{{.*}} : tensor<?x16xbf16>, tensor<?xf32>, tensor<16xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @rms_norm_default_eps(%x: tensor<?x16xbf16>, %w: tensor<16xbf16>) -> tensor<?x16xbf16> {
  %y = tgc.rms_norm %x weight(%w : tensor<16xbf16>) normalized_rank = 1 : tensor<?x16xbf16>
  return %y : tensor<?x16xbf16>
}

// -----

// CHECK-LABEL: func.func @rms_norm_f16_eps
// CHECK: arith.constant {{.*}}9.765625E-4 : f32
func.func @rms_norm_f16_eps(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = tgc.rms_norm %x normalized_rank = 1 : tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

// Attention: Q K^T with broadcast batch dims (a static 1 reads index 0),
// the scale 1/sqrt(8) and the bool mask (false scores -inf), the softmax
// over S, then the product with V; f16 computes in f32.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d3, d4)>
// CHECK-DAG: #[[MASK:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>
// CHECK-LABEL: func.func @attention_bool_mask
// CHECK-SAME: (%[[QA:[a-z0-9]+]]: tensor<2x?x4x8xf16>, %[[KA:[a-z0-9]+]]: tensor<2x1x5x8xf16>, %[[VA:[a-z0-9]+]]: tensor<1x?x5x6xf16>, %[[MA:[a-z0-9]+]]: tensor<4x5xi1>)
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QA]], %[[KA]] : {{.*}}) outs(%{{.*}} : tensor<2x?x4x5xf32>)
// CHECK: %[[SCALE:.*]] = arith.constant {{.*}}0.353553385 : f32
// CHECK: %[[NEGINF:.*]] = arith.constant {{.*}}0xFF800000 : f32
// CHECK: %[[MASKED:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[MASK]], #{{.*}}], {{.*}} ins(%[[S]], %[[MA]] : tensor<2x?x4x5xf32>, tensor<4x5xi1>)
// CHECK: ^bb0(%[[SC:.*]]: f32, %[[M:.*]]: i1, %{{.*}}: f32):
// CHECK: %[[SCALED:.*]] = arith.mulf %[[SC]], %[[SCALE]]
// CHECK: arith.select %[[M]], %[[SCALED]], %[[NEGINF]]
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[MASKED]] : tensor<2x?x4x5xf32>) outs(%{{.*}} : tensor<2x?x4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[MASKED]], %[[MAX]] : {{.*}})
// The probabilities are rounded to f16, as PyTorch's math path has them:
// P V is a product of one dtype, accumulated in f32.
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[MASKED]], %[[MAX]], %[[SUM]] : {{.*}}) outs(%{{.*}} : tensor<2x?x4x5xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[O:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[V]], #{{.*}}], {{.*}} ins(%[[P]], %[[VA]] : tensor<2x?x4x5xf16>, tensor<1x?x5x6xf16>) outs(%{{.*}} : tensor<2x?x4x6xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[O]] : tensor<2x?x4x6xf32>) outs(%{{.*}} : tensor<2x?x4x6xf16>)
func.func @attention_bool_mask(%q: tensor<2x?x4x8xf16>, %k: tensor<2x1x5x8xf16>, %v: tensor<1x?x5x6xf16>, %m: tensor<4x5xi1>) -> tensor<2x?x4x6xf16> {
  %o = tgc.scaled_dot_product_attention %q, %k, %v mask(%m : tensor<4x5xi1>) : tensor<2x?x4x8xf16>, tensor<2x1x5x8xf16>, tensor<1x?x5x6xf16> -> tensor<2x?x4x6xf16>
  return %o : tensor<2x?x4x6xf16>
}

// -----

// causal masks j > i (top-left aligned, as tril(ones(L, S))); a `?` E
// gives the scale at run time.
// CHECK-LABEL: func.func @attention_causal
// CHECK-SAME: (%[[QA:[a-z0-9]+]]: tensor<?x?xf32>
// CHECK: %[[E:.*]] = tensor.dim {{.*}}%[[QA]], %c1
// CHECK: %[[EI:.*]] = arith.index_cast %[[E]]
// CHECK: %[[EF:.*]] = arith.sitofp %[[EI]] {{.*}}: i64 to f64
// CHECK: %[[ROOT:.*]] = math.sqrt %[[EF]]
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[ROOT]] {{.*}}: f64
// CHECK: %[[SCALE:.*]] = arith.truncf %[[INV]] {{.*}}: f64 to f32
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[FUTURE:.*]] = arith.cmpi ugt, %[[J]], %[[I]] : index
// CHECK: arith.select %[[FUTURE]]
func.func @attention_causal(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %o = tgc.scaled_dot_product_attention %q, %k, %v causal : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %o : tensor<?x?xf32>
}

// -----

// A float mask is added after the given scale.
// CHECK-LABEL: func.func @attention_float_mask
// CHECK: %[[SCALE:.*]] = arith.constant {{.*}}5.000000e-01 : f32
// CHECK: ^bb0(%[[SC:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[SCALED:.*]] = arith.mulf %[[SC]], %[[SCALE]]
// CHECK: arith.addf %[[SCALED]], %[[M]]
func.func @attention_float_mask(%q: tensor<3x4x8xf32>, %k: tensor<3x5x8xf32>, %v: tensor<3x5x8xf32>, %m: tensor<1x5xf32>) -> tensor<3x4x8xf32> {
  %o = tgc.scaled_dot_product_attention %q, %k, %v mask(%m : tensor<1x5xf32>) {scale = 0.5 : f64} : tensor<3x4x8xf32>, tensor<3x5x8xf32>, tensor<3x5x8xf32> -> tensor<3x4x8xf32>
  return %o : tensor<3x4x8xf32>
}

// -----

// conv2d: zero padding with tensor.pad, then im2col: the windows gathered
// into patches [N, C, kH, kW, H', W'] (the input map has the strides and
// dilations), viewed as [N, C kH kW, H' W'], and the weight [O, C kH kW]
// times them, broadcast over the batch; the bias added in the accumulator
// type. A `?` spatial size gives the output size at run time, checked to
// fit.
// CHECK: #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2 * 2, d5 * 2 + d3 * 2)>
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x3x?x32xf32>, %[[W:[a-z0-9]+]]: tensor<16x3x3x3xf32>, %[[B:[a-z0-9]+]]: tensor<16xf32>)
// CHECK: %[[N:.*]] = tensor.dim {{.*}}%[[X]], %c0
// CHECK: %[[H:.*]] = tensor.dim {{.*}}%[[X]], %c2
// CHECK: %[[PADDED_H:.*]] = arith.addi %[[H]], %c2
// CHECK: %[[NUM:.*]] = arith.subi %[[PADDED_H]], %c5
// CHECK: %[[FITS:.*]] = arith.cmpi sge, %[[NUM]], %c0
// CHECK: cf.assert %[[FITS]], "tgc.conv2d: the window does not fit the padded input"
// CHECK: %[[Q:.*]] = arith.divsi %[[NUM]], %c2
// CHECK: %[[OH:.*]] = arith.addi %[[Q]], %c1
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor<?x3x?x32xf32> to tensor<?x3x?x34xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[N]], %[[OH]]) {{.*}}: tensor<?x3x3x3x?x15xf32>
// CHECK: %[[PATCHES:.*]] = linalg.generic {indexing_maps = [#[[WINDOW]], #{{.*}}], {{.*}} ins(%[[PAD]] : tensor<?x3x?x34xf32>) outs(%[[EMPTY]] : tensor<?x3x3x3x?x15xf32>)
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %[[PATCHES]] {{\[\[}}0], [1, 2, 3], [4, 5]] {{.*}}: tensor<?x3x3x3x?x15xf32> into tensor<?x27x?xf32>
// CHECK: %[[WM:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] {{.*}}: tensor<16x3x3x3xf32> into tensor<16x27xf32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[WM]], %[[COLS]] : tensor<16x27xf32>, tensor<?x27x?xf32>) outs(%{{.*}} : tensor<?x16x?xf32>)
// CHECK: arith.mulf
// CHECK: %[[C:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0], [1], [2, 3]] output_shape [%[[N]], 16, %[[OH]], 15] {{.*}}: tensor<?x16x?xf32> into tensor<?x16x?x15xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]], %[[B]] : tensor<?x16x?x15xf32>, tensor<16xf32>)
// CHECK: arith.addf
func.func @conv2d(%x: tensor<?x3x?x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<?x16x?x15xf32> {
  %y = tgc.conv2d %x, %w bias(%b : tensor<16xf32>) stride [2, 2] padding [1, 1] dilation [2, 2] groups = 1 : tensor<?x3x?x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x16x?x15xf32>
  return %y : tensor<?x16x?x15xf32>
}

// -----

// groups: [N, G, C/G, H, W] x [G, O/G, C/G, kH, kW] with
// linalg.conv_2d_ngchw_gfchw; f16 accumulates in f32.
// CHECK-LABEL: func.func @conv2d_groups_f16
// CHECK: %[[XG:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 8, 8] {{.*}}: tensor<2x4x8x8xf16> into tensor<2x2x2x8x8xf16>
// CHECK: %[[WG:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] {{.*}}: tensor<6x2x3x3xf16> into tensor<2x3x2x3x3xf16>
// CHECK: %[[C:.*]] = linalg.conv_2d_ngchw_gfchw {{.*}}ins(%[[XG]], %[[WG]] : tensor<2x2x2x8x8xf16>, tensor<2x3x2x3x3xf16>) outs(%{{.*}} : tensor<2x2x3x6x6xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0], [1, 2], [3], [4]] {{.*}}: tensor<2x2x3x6x6xf32> into tensor<2x6x6x6xf32>
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<2x6x6x6xf32>) outs(%{{.*}} : tensor<2x6x6x6xf16>)
// CHECK: arith.truncf
func.func @conv2d_groups_f16(%x: tensor<2x4x8x8xf16>, %w: tensor<6x2x3x3xf16>) -> tensor<2x6x6x6xf16> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 2 : tensor<2x4x8x8xf16>, tensor<6x2x3x3xf16> -> tensor<2x6x6x6xf16>
  return %y : tensor<2x6x6x6xf16>
}

// -----

// Unbatched input: a unit batch dim added, then removed.
// CHECK-LABEL: func.func @conv2d_unbatched
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] output_shape [1, 3, 5, 5] {{.*}}: tensor<3x5x5xf32> into tensor<1x3x5x5xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3], [4, 5]] {{.*}}: tensor<1x3x2x2x4x4xf32> into tensor<1x12x16xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] {{.*}}: tensor<1x2x4x4xf32> into tensor<2x4x4xf32>
func.func @conv2d_unbatched(%x: tensor<3x5x5xf32>, %w: tensor<2x3x2x2xf32>) -> tensor<2x4x4xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups = 1 : tensor<3x5x5xf32>, tensor<2x3x2x2xf32> -> tensor<2x4x4xf32>
  return %y : tensor<2x4x4xf32>
}

// -----

// Both output sizes `?`: the window loops of linalg.conv_2d_nchw_fchw (the
// im2col product's [N, O, H' W'] would be viewed as [N, O, H', W'] by a
// memref.expand_shape of one `?` size into two, which MLIR 22's
// expand-strided-metadata crashes on).
// CHECK-LABEL: func.func @conv2d_dynamic_image
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv2d_dynamic_image(%x: tensor<1x2x?x?xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x?x?xf32> {
  %y = tgc.conv2d %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<1x2x?x?xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x?x?xf32>
  return %y : tensor<1x3x?x?xf32>
}

// -----

// max_pool2d pads with -inf; in ceil_mode the last window may reach past
// the padded input, which gets more -inf on the high side (6 + 2 * 1 = 8
// rows, the 4th window reads rows 6..8: one more).
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x2x6x6xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant {{.*}}0xFF800000 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: tensor.yield %[[NEGINF]]
// CHECK: tensor<1x2x6x6xf32> to tensor<1x2x9x9xf32>
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}}ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: %[[WIN:.*]] = tensor.empty() {{.*}}: tensor<3x3xf32>
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>{{.*}}} ins(%[[PAD]], %[[WIN]] : tensor<1x2x9x9xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x2x4x4xf32>)
func.func @max_pool_ceil(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32> {
  %p = tgc.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] dilation [1, 1] ceil_mode : tensor<1x2x6x6xf32> -> tensor<1x2x4x4xf32>
  return %p : tensor<1x2x4x4xf32>
}

// -----

// A `?` size in ceil_mode: PyTorch's rule (the last window must start inside
// the input or the left padding) at run time, and the high padding that
// follows from it.
// CHECK-LABEL: func.func @max_pool_dynamic_i32
// CHECK: %[[MIN:.*]] = arith.constant {{.*}}-2147483648 : i32
// CHECK: %[[H:.*]] = tensor.dim
// CHECK: cf.assert
// CHECK: %[[OUTSIDE:.*]] = arith.cmpi sge
// CHECK: %[[OH:.*]] = arith.select %[[OUTSIDE]]
// CHECK: %[[EXTRA:.*]] = arith.maxsi
// CHECK: %[[HIGH:.*]] = arith.addi %[[EXTRA]], %c0
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, %[[HIGH]], 0]
// CHECK: tensor.empty(%[[OH]]) {{.*}}: tensor<1x1x?x2xi32>
// CHECK: linalg.pooling_nchw_max {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>
func.func @max_pool_dynamic_i32(%x: tensor<1x1x?x4xi32>) -> tensor<1x1x?x2xi32> {
  %p = tgc.max_pool2d %x kernel [2, 2] stride [3, 2] padding [0, 0] dilation [2, 1] ceil_mode : tensor<1x1x?x4xi32> -> tensor<1x1x?x2xi32>
  return %p : tensor<1x1x?x2xi32>
}

// -----

// avg_pool2d: a sum pooling in f32, then ATen's divisor per output position
// (count_include_pad: the window clamped to the padded input).
// CHECK-LABEL: func.func @avg_pool_f16
// CHECK: %[[PAD:.*]] = tensor.pad
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {{.*}}ins(%[[PAD]], %{{.*}} : tensor<1x3x9x9xf16>, tensor<3x3xf16>) outs(%{{.*}} : tensor<1x3x4x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x3x4x4xf32>) outs(%{{.*}} : tensor<1x3x4x4xf16>)
// CHECK: %[[OH:.*]] = linalg.index 2 : index
// CHECK: %[[START:.*]] = arith.subi
// CHECK: %[[END:.*]] = arith.minsi
// CHECK-NOT: arith.maxsi
// CHECK: %[[EXTENT:.*]] = arith.subi %[[END]], %[[START]]
// CHECK: linalg.index 3 : index
// CHECK: %[[COUNT:.*]] = arith.muli %[[EXTENT]], %{{.*}} : index
// CHECK: %[[COUNTI:.*]] = arith.index_cast %[[COUNT]]
// CHECK: %[[DIV:.*]] = arith.sitofp %[[COUNTI]] : i64 to f32
// CHECK: arith.divf %{{.*}}, %[[DIV]] : f32
// CHECK: arith.truncf
func.func @avg_pool_f16(%x: tensor<1x3x7x7xf16>) -> tensor<1x3x4x4xf16> {
  %p = tgc.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] ceil_mode : tensor<1x3x7x7xf16> -> tensor<1x3x4x4xf16>
  return %p : tensor<1x3x4x4xf16>
}

// -----

// Without count_include_pad the window is also clamped to the input.
// CHECK-LABEL: func.func @avg_pool_exclude_pad
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.index 2 : index
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: arith.minsi
func.func @avg_pool_exclude_pad(%x: tensor<1x3x?x8xf32>) -> tensor<1x3x?x4xf32> {
  %p = tgc.avg_pool2d %x kernel [3, 2] stride [2, 2] padding [1, 0] {count_include_pad = false} : tensor<1x3x?x8xf32> -> tensor<1x3x?x4xf32>
  return %p : tensor<1x3x?x4xf32>
}

// -----

// divisor_override replaces the divisor.
// CHECK-LABEL: func.func @avg_pool_divisor
// CHECK: linalg.pooling_nchw_sum
// CHECK: %[[D:.*]] = arith.constant 5.000000e+00 : f32
// CHECK-NOT: linalg.index
// CHECK: arith.divf %{{.*}}, %[[D]] : f32
func.func @avg_pool_divisor(%x: tensor<3x8x8xf32>) -> tensor<3x4x4xf32> {
  %p = tgc.avg_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] {divisor_override = 5 : i64} : tensor<3x8x8xf32> -> tensor<3x4x4xf32>
  return %p : tensor<3x4x4xf32>
}
