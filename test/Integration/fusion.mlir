// Fusion across a graph with shared producers: a broadcast product feeds
// a hand-written softmax (amax, sub, exp, sum, div), a column sum, tanh
// and a second reduction pair, and an intermediate is also returned.
// Compiled fused (the default) and with --no-fuse, both against the
// reference interpreter, with both dims dynamic; one compile each for
// three shapes.

// RUN: tgc-run %s --calls 0=3x5,1=3x1,2=5 --calls 0=17x40,1=17x1,2=40 --calls 0=64x3,1=64x1,2=3 \
// RUN:   --check reference --json | FileCheck %s
// RUN: tgc-run %s --calls 0=3x5,1=3x1,2=5 --calls 0=17x40,1=17x1,2=40 --calls 0=64x3,1=64x1,2=3 \
// RUN:   --no-fuse --check reference --json | FileCheck %s
// CHECK:      "calls": 3,
// CHECK:      "compiles": 1,
// CHECK:      "reference_ok": true

func.func @diamond(%x: tensor<?x?xf32>, %col: tensor<?x1xf32>, %row: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %a = tgc.mul %x, %col : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  %b = tgc.add %a, %row : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %m = tgc.amax %b dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %d = tgc.sub %b, %m : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  %e = tgc.exp %d : tensor<?x?xf32>
  %s = tgc.sum %e dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %p = tgc.div %e, %s : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  %cs = tgc.sum %p dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %q = tgc.mul %p, %cs : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %t = tgc.tanh %b : tensor<?x?xf32>
  %u = tgc.add %q, %t : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %v = tgc.var %u dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %w = tgc.mean %u dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %u, %v, %a, %w : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>
}
