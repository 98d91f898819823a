// RUN: tgc-opt %s -tgc-to-linalg | FileCheck %s

// tgc.philox_uniform is one elementwise generic: the seed a rank-0 input
// (read in the kernel, not on the host), each element's row-major position
// the counter's low words and the stream its high words, ten Philox
// rounds (two 32-bit multiplies with high halves each), and the first
// word's top 24 bits scaled by 2^-24, then rounded to the element type.
// CHECK-DAG: #[[SEED:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @uniform
// CHECK-SAME: (%[[SEED_ARG:.*]]: tensor<i64>, %[[N:.*]]: index)
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) {{.*}}: tensor<?x64xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[SEED]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[SEED_ARG]] : tensor<i64>) outs(%[[E]] : tensor<?x64xbf16>)
// CHECK: ^bb0(%[[S:.*]]: i64, %{{.*}}: bf16):
// CHECK:   linalg.index 0
// CHECK:   linalg.index 1
// CHECK:   arith.index_castui %{{.*}} : index to i64
// CHECK-COUNT-20: arith.mului_extended
// CHECK:   arith.shrui %{{.*}}, %{{.*}} : i32
// CHECK:   arith.uitofp %{{.*}} : i32 to f32
// CHECK:   arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK:   linalg.yield
func.func @uniform(%seed: tensor<i64>, %n: index) -> tensor<?x64xbf16> {
  %u = tgc.philox_uniform %seed stream = 5 [%n] : tensor<i64> -> tensor<?x64xbf16>
  return %u : tensor<?x64xbf16>
}
