// RUN: tgc-opt %s -tgc-print-guards -o /dev/null 2>&1 | FileCheck %s

func.func private @topk_out(tensor<?xf32>, tensor<10xf32>, tensor<10xi64>)

tgc_guard.guard_set for @topk_out {
  %s0 = tgc_sym.symbol "s0" range [2, inf] hint 100 from arg 0 dim 0
  tgc_guard.rank arg 0 is 1 reason "compiled for a 1-d tensor at arg 0"
  tgc_guard.range %s0 in [10, inf] reason "tgc.topk needs k (10) <= size of dim 0 at model.py:12:5" loc("model.py":12:5)
}

// CHECK: guards for @topk_out (2 guards)
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     s0 = size of arg 0 dim 0, declared range [2, inf], example 100
// CHECK-NEXT:   [0] rank(arg0) == 1
// CHECK-NEXT:       because compiled for a 1-d tensor at arg 0
// CHECK:        [1] s0 >= 10
// CHECK-NEXT:       because tgc.topk needs k (10) <= size of dim 0 at model.py:12:5
// CHECK-NEXT:       from model.py:12:5
