// Shape ops compiled for the CPU against the reference interpreter:
// reshape (inferred and explicit sizes), permute, concat, strided and
// negative-start slices, expand, squeeze, unsqueeze and constant padding
// on a dynamic batch, and slice, concat and pad of the dynamic dim itself
// (@shape_ops); full, iota and constants built inside the function
// (@builders). One compile serves both batch sizes.

// RUN: tgc-run %s --entry shape_ops --calls 0=2x4x6,1=2x4x6,3=5x4x6 --calls 0=7x4x6,1=7x4x6,3=3x4x6 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=SHAPE
// SHAPE:      "calls": 2,
// SHAPE:      "compiles": 1,
// SHAPE:      "reference_ok": true

// RUN: tgc-run %s --entry builders --calls 0=2x3 --calls 0=5x3 --check reference --print-results \
// RUN:   | FileCheck %s --check-prefix=BUILD
// BUILD:      result 1 (call 0): [3,  1]
// BUILD:      result 1 (call 1): [3,  1,  -1,  -3,  -5]
// BUILD:      compiled @builders 1 time(s) for 2 call(s)
// BUILD:      reference check: ok

func.func @shape_ops(%x: tensor<?x4x6xf32>, %y: tensor<?x4x6xf32>, %r: tensor<4x1xf32>,
                      %z: tensor<?x4x6xf32>)
    -> (tensor<?x24xf32>, tensor<?x3x8xf32>, tensor<6x?x4xf32>, tensor<?x8x6xf32>,
        tensor<?x4x2xf32>, tensor<?x2x6xf32>, tensor<?x4x6xf32>, tensor<?x6xf32>,
        tensor<?x4x1x6xf32>, tensor<?x4x9xf32>, tensor<?x?x2x6xf32>,
        tensor<?x4x6xf32>, tensor<?x4x6xf32>, tensor<?x4x6xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x6xf32>
  %c2 = arith.constant 2 : index
  %a = tgc.neg %x : tensor<?x4x6xf32>
  %0 = tgc.reshape %a : tensor<?x4x6xf32> -> tensor<?x24xf32>
  %b = tgc.abs %x : tensor<?x4x6xf32>
  %b0 = tgc.reshape %b : tensor<?x4x6xf32> -> tensor<?x24xf32>
  %1 = tgc.reshape %b0 : tensor<?x24xf32> -> tensor<?x3x8xf32>
  %2 = tgc.permute %x [2, 0, 1] : tensor<?x4x6xf32> -> tensor<6x?x4xf32>
  %3 = tgc.concat %x, %y dim = 1 : (tensor<?x4x6xf32>, tensor<?x4x6xf32>) -> tensor<?x8x6xf32>
  %4 = tgc.slice %x dim = 2 start = 1 end = 6 step = 3 : tensor<?x4x6xf32> -> tensor<?x4x2xf32>
  %5 = tgc.slice %x dim = 1 start = -2 end = 9223372036854775807 step = 1 : tensor<?x4x6xf32> -> tensor<?x2x6xf32>
  %e = tgc.expand %r : tensor<4x1xf32> -> tensor<4x6xf32>
  %6 = tgc.add %e, %x : tensor<4x6xf32>, tensor<?x4x6xf32> -> tensor<?x4x6xf32>
  %s1 = tgc.slice %x dim = 1 start = 3 end = 4 step = 1 : tensor<?x4x6xf32> -> tensor<?x1x6xf32>
  %7 = tgc.squeeze %s1 dims [1] : tensor<?x1x6xf32> -> tensor<?x6xf32>
  %u = tgc.exp %x : tensor<?x4x6xf32>
  %8 = tgc.unsqueeze %u dim = 2 : tensor<?x4x6xf32> -> tensor<?x4x1x6xf32>
  %9 = tgc.pad %x low [0, 0, 1] high [0, 0, 2] value -2.5 : f32 : tensor<?x4x6xf32> -> tensor<?x4x9xf32>
  %t = tgc.tanh %x : tensor<?x4x6xf32>
  %10 = tgc.reshape %t [%n, %c2] : tensor<?x4x6xf32> -> tensor<?x?x2x6xf32>
  // Along the dynamic dim n: sizes ceil((n - 1) / 2), n + size(z) and n + 3.
  %11 = tgc.slice %x dim = 0 start = 1 end = 9223372036854775807 step = 2 : tensor<?x4x6xf32> -> tensor<?x4x6xf32>
  %12 = tgc.concat %x, %z dim = 0 : (tensor<?x4x6xf32>, tensor<?x4x6xf32>) -> tensor<?x4x6xf32>
  %13 = tgc.pad %x low [1, 0, 0] high [2, 0, 0] value 1.0 : f32 : tensor<?x4x6xf32> -> tensor<?x4x6xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
    : tensor<?x24xf32>, tensor<?x3x8xf32>, tensor<6x?x4xf32>, tensor<?x8x6xf32>,
      tensor<?x4x2xf32>, tensor<?x2x6xf32>, tensor<?x4x6xf32>, tensor<?x6xf32>,
      tensor<?x4x1x6xf32>, tensor<?x4x9xf32>, tensor<?x?x2x6xf32>,
      tensor<?x4x6xf32>, tensor<?x4x6xf32>, tensor<?x4x6xf32>
}

func.func @builders(%x: tensor<?x3xf32> {tgc.input_range = array<f64: -10.0, 10.0>}) -> (tensor<?x3xf32>, tensor<?xi64>, tensor<2x2xi64>, tensor<?x3xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %f = tgc.full 0.5 : f32 [%n] : tensor<?x3xf32>
  %0 = tgc.mul %x, %f : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %1 = tgc.iota 3 : i64, -2 : i64 [%n] : tensor<?xi64>
  %c = tgc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %xi = tgc.convert %x : tensor<?x3xf32> -> tensor<?x3xi64>
  %s = tgc.sum %xi dims [0, 1] : tensor<?x3xi64> -> tensor<i64>
  %2 = tgc.add %c, %s : tensor<2x2xi64>, tensor<i64> -> tensor<2x2xi64>
  %k = tgc.constant dense<[[1.0, -1.0, 2.0]]> : tensor<1x3xf32>
  %3 = tgc.concat %k, %x dim = 0 : (tensor<1x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0, %1, %2, %3 : tensor<?x3xf32>, tensor<?xi64>, tensor<2x2xi64>, tensor<?x3xf32>
}
