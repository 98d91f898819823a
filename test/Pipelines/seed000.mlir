// Seed 000 (pytorch#135859): out-variant ops must compile once for every
// size their semantics allow. PyTorch emits `Eq(s0, 7)`-style guards and
// recompiles per size; TGC's guards on the varying sizes are ranges and
// the relations the ops really need, never an equality with the example.
//
// RUN: tgc-opt %s --tgc-frontend-pipeline="duck-sizing=false" --tgc-print-guards -o /dev/null 2>&1 | FileCheck %s
// RUN: tgc-opt %s --tgc-frontend-pipeline="duck-sizing=false lower-guards=true" | FileCheck %s --check-prefix=LOWERED

// torch.topk(x, 10, out=(values, indices)): only `s0 >= 10`.
// CHECK-LABEL: guards for @topk_out
// CHECK: s0 = size of arg 0 dim 0, declared range [2, inf], example 7
// CHECK-NOT: s0 ==
// CHECK: s0 >= 10
// CHECK-NEXT: because tgc.topk needs k (10) <= size of dim 0 at model.py:12:5
// CHECK-NOT: s0 ==
func.func @topk_out(%x: tensor<?xf32> {tgc.example_shape = array<i64: 7>}, %v: tensor<10xf32>, %i: tensor<10xi64>) {
  %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64> loc("model.py":12:5)
  tgc.write_out %values into %v : tensor<10xf32> into tensor<10xf32> loc("model.py":12:5)
  tgc.write_out %indices into %i : tensor<10xi64> into tensor<10xi64> loc("model.py":12:5)
  return
}

// torch.bmm(a, b, out=c): the batch sizes are related, not pinned.
// CHECK-LABEL: guards for @bmm_out
// CHECK: s0 >= 2
// CHECK-NOT: s0 == 5
// CHECK: s1 == s0
// CHECK-NEXT: because tgc.bmm batch sizes must be equal at model.py:20:3
// CHECK: s2 == s0
// CHECK-NEXT: because tgc.write_out: dim 0 of the value must equal the out buffer's at model.py:20:3
func.func @bmm_out(%a: tensor<?x3x4xf32> {tgc.example_shape = array<i64: 5, 3, 4>}, %b: tensor<?x4x5xf32> {tgc.example_shape = array<i64: 5, 4, 5>}, %c: tensor<?x3x5xf32> {tgc.example_shape = array<i64: 5, 3, 5>}) {
  %r = tgc.bmm %a, %b : tensor<?x3x4xf32>, tensor<?x4x5xf32> -> tensor<?x3x5xf32> loc("model.py":20:3)
  tgc.write_out %r into %c : tensor<?x3x5xf32> into tensor<?x3x5xf32> loc("model.py":20:3)
  return
}

// torch.linalg.cholesky over a batch, out=: the batch is free.
// CHECK-LABEL: guards for @cholesky_out
// CHECK: s0 >= 2
// CHECK-NOT: s0 == 6
// CHECK: s1 == s0
// CHECK-NEXT: because tgc.write_out: dim 0 of the value must equal the out buffer's at model.py:30:3
func.func @cholesky_out(%a: tensor<?x4x4xf64> {tgc.example_shape = array<i64: 6, 4, 4>}, %o: tensor<?x4x4xf64> {tgc.example_shape = array<i64: 6, 4, 4>}) {
  %l = tgc.cholesky %a : tensor<?x4x4xf64> loc("model.py":30:3)
  tgc.write_out %l into %o : tensor<?x4x4xf64> into tensor<?x4x4xf64> loc("model.py":30:3)
  return
}

// torch.linalg.norm(x, dim=1, out=o): the reduced size is free.
// CHECK-LABEL: guards for @norm_out
// CHECK: s0 = size of arg 0 dim 1, declared range [2, inf], example 33
// CHECK: s0 >= 2
// CHECK-NOT: s0 ==
// CHECK-LABEL: guards for @max_out
func.func @norm_out(%x: tensor<8x?xf32> {tgc.example_shape = array<i64: 8, 33>}, %o: tensor<8xf32>) {
  %n = tgc.norm %x dims [1] : tensor<8x?xf32> -> tensor<8xf32> loc("model.py":40:3)
  tgc.write_out %n into %o : tensor<8xf32> into tensor<8xf32>
  return
}

// torch.max(x, dim=1, out=(v, i)): the reduced size is free.
// CHECK: s0 = size of arg 0 dim 1, declared range [2, inf], example 17
// CHECK: s0 >= 2
// CHECK-NOT: s0 ==
func.func @max_out(%x: tensor<4x?xf32> {tgc.example_shape = array<i64: 4, 17>}, %v: tensor<4xf32>, %i: tensor<4xi64>) {
  %values, %indices = tgc.max %x dim 1 : tensor<4x?xf32> -> tensor<4xf32>, tensor<4xi64> loc("model.py":50:3)
  tgc.write_out %values into %v : tensor<4xf32> into tensor<4xf32>
  tgc.write_out %indices into %i : tensor<4xi64> into tensor<4xi64>
  return
}

// LOWERED-DAG: llvm.func @tgc_guard_topk_out(
// LOWERED-DAG: llvm.func @tgc_guard_bmm_out(
// LOWERED-DAG: llvm.func @tgc_guard_cholesky_out(
// LOWERED-DAG: llvm.func @tgc_guard_norm_out(
// LOWERED-DAG: llvm.func @tgc_guard_max_out(
// LOWERED-NOT: tgc_guard.guard_set
