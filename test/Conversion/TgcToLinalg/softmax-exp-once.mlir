// RUN: tgc-opt %s -tgc-to-linalg=softmax-exp-once=true | FileCheck %s

// With softmax-exp-once (the CPU pipeline) a softmax's exp(x - max) is an
// elementwise op of its own (in the compute type, f32 for f16) that the sum
// and the division both read, so a row kernel computes it once per
// element. log_softmax is unchanged (it needs no exp after its sum).

// CHECK-LABEL: func.func @softmax_f16
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x8xf16>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<?x8xf16>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<?x8xf16>, tensor<?xf32>) outs(%{{.*}} : tensor<?x8xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<?x8xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[E]], %[[SUM]] : tensor<?x8xf32>, tensor<?xf32>) outs(%{{.*}} : tensor<?x8xf16>)
// CHECK-NOT: math.exp
// CHECK: arith.divf
// CHECK: arith.truncf
func.func @softmax_f16(%x: tensor<?x8xf16>) -> tensor<?x8xf16> {
  %p = tgc.softmax %x dim = 1 : tensor<?x8xf16>
  return %p : tensor<?x8xf16>
}

// CHECK-LABEL: func.func @log_softmax
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.log
// CHECK-NOT: math.exp
// CHECK: return
func.func @log_softmax(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %p = tgc.log_softmax %x dim = 1 : tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}
