// RUN: tgc-opt %s --tgc-form-kernels | FileCheck %s

// A group op whose operand is a cast of a tensor with a static size 0
// iterates over nothing: it stays a loop nest of its own (no scf.forall).
// Tiling it crashed upstream's tile-size computation once the sizes folded
// to the cast's 0 (fuzz-crash.py seed 6000555: the full CPU pipeline, with
// the input's size 0 specialized, leaves such a cast).

// CHECK-LABEL: func.func @empty_through_cast
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}} ins(%cast : tensor<?x?x?xf32>)
// CHECK-NOT: scf.forall
func.func @empty_through_cast(%x: tensor<1x?x0xf32>) -> tensor<3x?x?x?xf32> {
  %arg1 = tensor.cast %x : tensor<1x?x0xf32> to tensor<?x?x?xf32>
  %c0 = arith.constant {tgc.group = 0 : i64, tgc.group_kind = "single"} 0 : index
  %dim = tensor.dim {tgc.group = 0 : i64, tgc.group_kind = "single"} %arg1, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant {tgc.group = 0 : i64, tgc.group_kind = "single"} 1 : index
  %dim_0 = tensor.dim {tgc.group = 0 : i64, tgc.group_kind = "single"} %arg1, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant {tgc.group = 0 : i64, tgc.group_kind = "single"} 2 : index
  %dim_1 = tensor.dim {tgc.group = 0 : i64, tgc.group_kind = "single"} %arg1, %c2 : tensor<?x?x?xf32>
  %0 = tensor.empty(%dim, %dim_0, %dim_1) {tgc.group = 0 : i64, tgc.group_kind = "single"} : tensor<3x?x?x?xf32>
  %b = linalg.broadcast ins(%arg1 : tensor<?x?x?xf32>) outs(%0 : tensor<3x?x?x?xf32>) dimensions = [0] {tgc.group = 0 : i64, tgc.group_kind = "single"}
  return %b : tensor<3x?x?x?xf32>
}
