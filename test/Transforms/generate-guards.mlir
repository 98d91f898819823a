// RUN: tgc-opt %s -tgc-generate-guards -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tgc-opt %s -tgc-generate-guards="device=cuda:1 assume-contiguous=false" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=CUDA
// RUN: not tgc-opt %s -tgc-generate-guards="device=tpu" -split-input-file 2>&1 | FileCheck %s --check-prefix=DEVICE

// DEVICE: tgc-generate-guards: unknown device 'tpu' (expected cpu, cuda or cuda:N)

// Input as tgc-infer-shapes leaves it (seed 000, topk with out buffers).
func.func @topk_out(%x: tensor<?xf32>, %v: tensor<10xf32>, %i: tensor<10xi64>) {
  %s0 = tgc_sym.symbol "s0" range [2, inf] hint 100 from arg 0 dim 0
  tgc_sym.bind %x [%s0] : tensor<?xf32>
  tgc_sym.bind %v [10] : tensor<10xf32>
  tgc_sym.bind %i [10] : tensor<10xi64>
  %values, %indices = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
  tgc_sym.constrain ge [%s0, 10] reason "tgc.topk needs k (10) <= size of dim 0" loc("model.py":12:5)
  tgc.write_out %values into %v : tensor<10xf32> into tensor<10xf32> loc("model.py":12:5)
  tgc.write_out %indices into %i : tensor<10xi64> into tensor<10xi64> loc("model.py":12:5)
  return
}

// CHECK-LABEL: tgc_guard.guard_set for @topk_out
// CHECK-NEXT: tgc_guard.rank arg 0 is 1 reason "compiled for a 1-d tensor at arg 0"
// CHECK-NEXT: tgc_guard.dtype arg 0 is f32 reason "compiled for f32 at arg 0"
// CHECK-NEXT: tgc_guard.device arg 0 is "cpu" reason "compiled for device cpu"
// CHECK-NEXT: tgc_guard.contiguous arg 0 reason "the compiled code indexes arg 0 as a dense row-major tensor"
// CHECK: tgc_guard.dtype arg 2 is i64
// CHECK: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] hint 100 from arg 0 dim 0
// CHECK-NEXT: tgc_guard.range %[[S0]] in [2, inf] reason "s0 is the size of arg 0 dim 0, dynamic over [2, inf] (0/1 specialization: sizes 0 and 1 get their own compilation)"
// CHECK-NEXT: %[[V:.*]] = tgc_sym.symbol "arg1_dim0" range [0, inf] from arg 1 dim 0
// CHECK-NEXT: tgc_guard.range %[[V]] in [10, 10] reason "arg 1 dim 0 is 10 in the compiled signature"
// CHECK: tgc_guard.range %[[S0]] in [10, inf] reason "tgc.topk needs k (10) <= size of dim 0 at model.py:12:5"
// CHECK-NEXT: tgc_guard.no_alias arg 1, arg 0 reason "arg 1 is an out buffer (tgc.write_out at model.py:12:5): it must not overlap arg 0"
// CHECK-NEXT: tgc_guard.no_alias arg 1, arg 2
// CHECK-NEXT: tgc_guard.no_alias arg 2, arg 0
// CHECK-NEXT: }
// CUDA: tgc_guard.device arg 0 is "cuda:1" reason "compiled for device cuda:1"
// CUDA-NOT: tgc_guard.contiguous

// -----

// Duck sizing (arg 1 dim 0 bound to s0) and specialization (a recorded
// reason) become equality guards on the actual sizes; a relation from an
// op becomes a relation guard.
func.func @duck(%x: tensor<?x?xf32>, %y: tensor<?xf32>) {
  %s0 = tgc_sym.symbol "s0" range [2, inf] hint 8 from arg 0 dim 0
  tgc_sym.bind %x [%s0, 3] {tgc.reasons = ["", "specialized to the example size 3 (policy static)"]} : tensor<?x?xf32>
  tgc_sym.bind %y [%s0] : tensor<?xf32>
  tgc_sym.constrain divisible [%s0 * 3, 4] reason "tgc.reshape needs a multiple of 4"
  return
}

// CHECK-LABEL: tgc_guard.guard_set for @duck
// CHECK: %[[S0:.*]] = tgc_sym.symbol "s0"
// CHECK: %[[D1:.*]] = tgc_sym.symbol "arg0_dim1" range [0, inf] from arg 0 dim 1
// CHECK-NEXT: tgc_guard.range %[[D1]] in [3, 3] reason "specialized to the example size 3 (policy static)"
// CHECK-NEXT: %[[Y0:.*]] = tgc_sym.symbol "arg1_dim0" range [0, inf] from arg 1 dim 0
// CHECK-NEXT: tgc_guard.relation eq [%[[Y0]], %[[S0]]] reason "duck sizing: arg 1 dim 0 had the same example size as s0"
// CHECK-NEXT: tgc_guard.relation divisible [%[[S0]] * 3, 4] reason "tgc.reshape needs a multiple of 4 at

// -----

// A constraint on a data-dependent size cannot be checked by a guard: it is
// reported, not dropped silently.
func.func @unbacked(%x: tensor<?xf32>, %n: index) {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  tgc_sym.bind %x [%s0] : tensor<?xf32>
  %u = tgc_sym.symbol "u0" range [0, inf]
  // expected-warning @+1 {{constraint on a data-dependent size cannot be checked before the call: u0 <= s0}}
  tgc_sym.constrain le [%u, %s0] reason "tgc.slice end within the input"
  return
}

// CHECK-LABEL: tgc_guard.guard_set for @unbacked
// CHECK-NOT: tgc_guard.relation
// CHECK: }


// -----

// A uint8 tensor is passed as its i8 storage, marked tgc.unsigned: the
// guard asks for uint8 (ui8), so an int8 tensor misses; an unmarked i8
// argument is int8.
func.func @unsigned_storage(%x: tensor<4xi8> {tgc.unsigned}, %y: tensor<4xi8>) -> tensor<4xi8> {
  tgc_sym.bind %x [4] : tensor<4xi8>
  tgc_sym.bind %y [4] : tensor<4xi8>
  return %x : tensor<4xi8>
}

// CHECK-LABEL: tgc_guard.guard_set for @unsigned_storage
// CHECK: tgc_guard.dtype arg 0 is ui8 reason "compiled for ui8 at arg 0"
// CHECK: tgc_guard.dtype arg 1 is i8 reason "compiled for i8 at arg 1"

// -----

// Nine arguments updated in place: 9 x 10 argument pairs (more than 64),
// so one no_alias_outs guard instead of a no_alias per pair.
func.func @many_outs(%a0: tensor<4xf32>, %a1: tensor<4xf32>, %a2: tensor<4xf32>, %a3: tensor<4xf32>, %a4: tensor<4xf32>, %a5: tensor<4xf32>, %a6: tensor<4xf32>, %a7: tensor<4xf32>, %a8: tensor<4xf32>, %g: tensor<4xf32>) {
  tgc_sym.bind %a0 [4] : tensor<4xf32>
  tgc_sym.bind %a1 [4] : tensor<4xf32>
  tgc_sym.bind %a2 [4] : tensor<4xf32>
  tgc_sym.bind %a3 [4] : tensor<4xf32>
  tgc_sym.bind %a4 [4] : tensor<4xf32>
  tgc_sym.bind %a5 [4] : tensor<4xf32>
  tgc_sym.bind %a6 [4] : tensor<4xf32>
  tgc_sym.bind %a7 [4] : tensor<4xf32>
  tgc_sym.bind %a8 [4] : tensor<4xf32>
  tgc_sym.bind %g [4] : tensor<4xf32>
  %x0 = tgc.add %a0, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x0 into %a0 : tensor<4xf32> into tensor<4xf32> loc("opt.py":7:5)
  %x1 = tgc.add %a1, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x1 into %a1 : tensor<4xf32> into tensor<4xf32> loc("opt.py":8:5)
  %x2 = tgc.add %a2, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x2 into %a2 : tensor<4xf32> into tensor<4xf32> loc("opt.py":9:5)
  %x3 = tgc.add %a3, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x3 into %a3 : tensor<4xf32> into tensor<4xf32> loc("opt.py":10:5)
  %x4 = tgc.add %a4, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x4 into %a4 : tensor<4xf32> into tensor<4xf32> loc("opt.py":11:5)
  %x5 = tgc.add %a5, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x5 into %a5 : tensor<4xf32> into tensor<4xf32> loc("opt.py":12:5)
  %x6 = tgc.add %a6, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x6 into %a6 : tensor<4xf32> into tensor<4xf32> loc("opt.py":13:5)
  %x7 = tgc.add %a7, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x7 into %a7 : tensor<4xf32> into tensor<4xf32> loc("opt.py":14:5)
  %x8 = tgc.add %a8, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  tgc.write_out %x8 into %a8 : tensor<4xf32> into tensor<4xf32> loc("opt.py":15:5)
  return
}

// CHECK-LABEL: tgc_guard.guard_set for @many_outs
// CHECK-NOT: tgc_guard.no_alias arg
// CHECK: tgc_guard.no_alias_outs outs [0, 1, 2, 3, 4, 5, 6, 7, 8] reason "9 arguments are out buffers (tgc.write_out, the first at opt.py:7:5): none may overlap another tensor argument"
// CHECK-NEXT: }
