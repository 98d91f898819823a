// REQUIRES: cuda-gpu
// Column and full reductions as two-stage trees against the reference
// interpreter: column sums split over several chunks per output (the
// second stage combines them) and with one chunk per output (the first
// stage finishes the outputs, the second is not launched), full sums of
// matrices and of long 1-D vectors (a warp per chunk, the second stage a
// block), mean and var (epilogues and a second tree that reads the first
// tree's result), maxima over a middle dim, integer and bf16 sums, keepdim;
// several sizes through one compile, on a stream and through CUDA graphs
// (a change of chunks per output changes which launches run: a graph of
// its own).

// RUN: tgc-run %s --entry columns --device cuda --calls 0=4096x300 --calls 0=3x70000 --calls 0=77x5 \
// RUN:   --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry columns --device cuda --calls 0=4096x300 --calls 0=3x70000 --calls 0=77x5 \
// RUN:   --check reference --json --cuda-graphs --fresh-inputs --repeat 2 | FileCheck %s
// RUN: tgc-run %s --entry full --device cuda --calls 0=700x1000,1=300000,2=3x100000 \
// RUN:   --calls 0=3x7,1=5,2=2x2 --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry full --device cuda --calls 0=700x1000,1=300000,2=3x100000 \
// RUN:   --calls 0=3x7,1=5,2=2x2 --check reference --json --cuda-graphs --repeat 2 | FileCheck %s
// RUN: tgc-run %s --entry middle --device cuda --calls 0=6x5000x40,1=3000x16x33 --calls 0=2x3x2,1=9x33x2 \
// RUN:   --check reference --json | FileCheck %s
// RUN: tgc-run %s --entry static_vector --device cuda --check reference --json | FileCheck %s
// CHECK: "compiles": 1,
// CHECK: "reference_ok": true

func.func @columns(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x?xf32>, tensor<?xf32>) {
  %s = tgc.sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %m = tgc.mean %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %v = tgc.var %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %a = tgc.amax %x dims [0] keepdim : tensor<?x?xf32> -> tensor<1x?xf32>
  %e = tgc.exp %s : tensor<?xf32>
  %n = tgc.neg %e : tensor<?xf32>
  return %s, %m, %v, %a, %n : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1x?xf32>, tensor<?xf32>
}

func.func @full(%x: tensor<?x?xf32>, %y: tensor<?xf32>, %i: tensor<?x?xi32> {tgc.input_range = array<i64: -9, 9>})
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<f32>) {
  %s = tgc.sum %x dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  %m = tgc.mean %y dims [0] : tensor<?xf32> -> tensor<f32>
  %a = tgc.amin %y dims [0] : tensor<?xf32> -> tensor<f32>
  %sq = tgc.mul %x, %x : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %q = tgc.sum %sq dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  %is = tgc.sum %i dims [0, 1] : tensor<?x?xi32> -> tensor<i32>
  %v = tgc.var %y dims [0] : tensor<?xf32> -> tensor<f32>
  return %s, %m, %a, %q, %is, %v : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<f32>
}

func.func @middle(%x: tensor<?x?x?xf32>, %h: tensor<?x?x?xbf16>) -> (tensor<?x?xf32>, tensor<?xbf16>, tensor<?xf32>) {
  %a = tgc.amax %x dims [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %s = tgc.sum %h dims [1, 2] : tensor<?x?x?xbf16> -> tensor<?xbf16>
  %m = tgc.mean %x dims [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
  return %a, %s, %m : tensor<?x?xf32>, tensor<?xbf16>, tensor<?xf32>
}

func.func @static_vector(%x: tensor<100000xf32>, %y: tensor<1000xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = tgc.sum %x dims [0] : tensor<100000xf32> -> tensor<f32>
  %t = tgc.sum %y dims [0] : tensor<1000xf32> -> tensor<f32>
  return %s, %t : tensor<f32>, tensor<f32>
}
