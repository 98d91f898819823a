// Values bound for out buffers whose inits CSE merged with a sibling's (the
// model-shaped fuzzer, seeds 202037 and 202038). Two amin reductions share
// one tensor.empty filled with +inf; empty-tensor elimination made it the
// out buffer of one of them, and one-shot bufferization then computed the
// other in that buffer, where the write_out's copy overwrote it (siblings),
// or started it from the value written there instead of +inf (independent
// reductions). tgc-unshare-inits gives the out buffer's chain its own init.

// RUN: tgc-run %s --entry siblings --seed 1 --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry independent --seed 1 --check reference --json | FileCheck %s
// CHECK: "reference_ok": true

func.func @siblings(%x: tensor<6xf32>, %s: tensor<1xf32>, %o1: tensor<f32>, %o2: tensor<1xf32>) {
  %m = tgc.amin %x dims [0] : tensor<6xf32> -> tensor<f32>
  %y = tgc.mul %x, %s : tensor<6xf32>, tensor<1xf32> -> tensor<6xf32>
  %n = tgc.amin %y dims [0] keepdim : tensor<6xf32> -> tensor<1xf32>
  tgc.write_out %m into %o1 : tensor<f32> into tensor<f32>
  tgc.write_out %n into %o2 : tensor<1xf32> into tensor<1xf32>
  return
}

func.func @independent(%x: tensor<3x1x3xf32>, %y: tensor<3x1x3xf32>, %o1: tensor<1xf32>, %o2: tensor<1xf32>) {
  %n = tgc.neg %x : tensor<3x1x3xf32>
  %a = tgc.amin %n dims [0, 2] : tensor<3x1x3xf32> -> tensor<1xf32>
  tgc.write_out %a into %o1 : tensor<1xf32> into tensor<1xf32>
  %b = tgc.amin %y dims [0, 2] : tensor<3x1x3xf32> -> tensor<1xf32>
  %c = tgc.expm1 %b : tensor<1xf32>
  tgc.write_out %c into %o2 : tensor<1xf32> into tensor<1xf32>
  return
}
