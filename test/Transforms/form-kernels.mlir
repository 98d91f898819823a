// RUN: tgc-opt %s --tgc-fuse --tgc-to-linalg --tgc-form-kernels --canonicalize --cse -split-input-file | FileCheck %s

// The entropy scorer -(softmax(x) * log(softmax(x))).sum(1) is one fusion
// group of kind "rows": one scf.forall over the rows, each iteration
// computing the row's max, sum, normalized values, log, product and sum
// over 1x128 slices. The fills of the reductions' accumulators move into
// the loop, so nothing runs over the whole tensor outside it.

// CHECK-LABEL: func.func @entropy
// CHECK-NOT: linalg.generic
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) in (%{{.*}}) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<?xf32>)
// CHECK: tensor.extract_slice %arg0[%[[I]], 0] [1, 128] [1, 1] : tensor<?x128xf32> to tensor<1x128xf32>
// CHECK-COUNT-3: iterator_types = ["parallel", "reduction"]
// CHECK: tensor.parallel_insert_slice
// CHECK: } {tgc.group = 0 : i64}
// CHECK-NEXT: return %[[R]]
func.func @entropy(%x: tensor<?x128xf32>) -> tensor<?xf32> {
  %p = tgc.softmax %x dim = 1 : tensor<?x128xf32>
  %l = tgc.log %p : tensor<?x128xf32>
  %m = tgc.mul %p, %l : tensor<?x128xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
  %s = tgc.sum %m dims [1] : tensor<?x128xf32> -> tensor<?xf32>
  %n = tgc.neg %s : tensor<?xf32>
  return %n : tensor<?xf32>
}

// -----

// A linear layer with its GELU epilogue: one loop over the rows; the zero
// fill of the accumulator is done per row inside the loop (the loop's
// shared output starts as the empty tensor, not as a filled one).

// CHECK-LABEL: func.func @linear_gelu
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) {{.*}}: tensor<?x128xf32>
// CHECK-NOT: linalg.generic
// CHECK: scf.forall (%[[I:.*]]) in (%{{.*}}) shared_outs(%{{.*}} = %[[E]])
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<1x128xf32>)
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: } {tgc.group = 0 : i64}
func.func @linear_gelu(%x: tensor<?x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> tensor<?x128xf32> {
  %h = tgc.linear %x, %w, %b : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %a = tgc.gelu %h : tensor<?x128xf32>
  return %a : tensor<?x128xf32>
}

// -----

// A 1-D elementwise chain is tiled in chunks of 4096 elements.

// CHECK-LABEL: func.func @chain
// CHECK: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (4096)
// CHECK: } {tgc.group = 0 : i64}
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = tgc.exp %x : tensor<?xf32>
  %b = tgc.tanh %a : tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// A loop over a static size 0 (a sum over an empty dim) is neither tiled
// nor fused into its consumer's loop: upstream's tiling divides by such
// extents (this crashed the pass). It stays a loop nest of its own whose
// reduction loop runs zero times, leaving the accumulator's fill, 0; the
// consumer (the f64 accumulator's conversion to f32) is tiled as usual.
// CHECK-LABEL: func.func @empty_reduction
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<0x4xf32>)
// CHECK:       math.exp
// CHECK:       scf.forall
// CHECK:       tensor.extract_slice %[[SUM]]
// CHECK:       } {tgc.group = 0 : i64}
func.func @empty_reduction(%x: tensor<0x4xf32>) -> tensor<4xf32> {
  %e = tgc.exp %x : tensor<0x4xf32>
  %s = tgc.sum %e dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
