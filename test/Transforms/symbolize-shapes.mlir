// RUN: tgc-opt %s -tgc-symbolize-shapes -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tgc-opt %s -tgc-symbolize-shapes="duck-sizing=false" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=NODUCK
// RUN: tgc-opt %s -tgc-symbolize-shapes="default-policy=static" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=STATIC
// RUN: tgc-opt %s -tgc-symbolize-shapes="default-policy=auto" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=AUTO
// RUN: tgc-opt %s -tgc-symbolize-shapes="specialize-zero-one=false" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=NOZO

// Dynamic sizes get symbols with range [2, inf] (0/1 specialization), the
// example as hint and the argument/dim they are read from; static sizes
// stay constants. Duck sizing: equal examples share a symbol.

// CHECK-LABEL: func.func @dynamic
// CHECK: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] hint 7 from arg 0 dim 0
// CHECK: tgc_sym.bind %arg0 [%[[S0]], 64] : tensor<?x64xf32>
// CHECK-NOT: tgc_sym.symbol "s1"
// CHECK: tgc_sym.bind %arg1 [%[[S0]]] : tensor<?xf32>
// NODUCK-LABEL: func.func @dynamic
// NODUCK: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] hint 7 from arg 0 dim 0
// NODUCK: %[[S1:.*]] = tgc_sym.symbol "s1" range [2, inf] hint 7 from arg 1 dim 0
// NODUCK: tgc_sym.bind %arg1 [%[[S1]]] : tensor<?xf32>
// STATIC-LABEL: func.func @dynamic
// STATIC-NOT: tgc_sym.symbol
// STATIC: tgc_sym.bind %arg0 [7, 64] {tgc.reasons = ["specialized to the example size 7 (policy static)", ""]} : tensor<?x64xf32>
// NOZO-LABEL: func.func @dynamic
// NOZO: tgc_sym.symbol "s0" range [0, inf] hint 7 from arg 0 dim 0
func.func @dynamic(%x: tensor<?x64xf32> {tgc.example_shape = array<i64: 7, 64>},
                   %y: tensor<?xf32> {tgc.example_shape = array<i64: 7>}) {
  return
}

// -----

// A dynamic size whose example is 1 is specialized, with that reason.
// CHECK-LABEL: func.func @zero_one
// CHECK-NOT: tgc_sym.symbol
// CHECK: tgc_sym.bind %arg0 [1, 8] {tgc.reasons = ["0/1 specialization: the example size is 1, and sizes 0 and 1 get their own compilation", ""]}
// NOZO-LABEL: func.func @zero_one
// NOZO: tgc_sym.symbol "s0" range [0, inf] hint 1 from arg 0 dim 0
func.func @zero_one(%x: tensor<?x8xf32> {tgc.example_shape = array<i64: 1, 8>}) {
  return
}

// -----

// Per-dimension overrides; `auto` makes the changed dims dynamic and keeps
// the others specialized.
// CHECK-LABEL: func.func @overrides
// CHECK: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] hint 5 from arg 0 dim 1
// CHECK: tgc_sym.bind %arg0 [3, %[[S0]]] {tgc.reasons = ["specialized to the example size 3 (policy static)", ""]}
// AUTO-LABEL: func.func @overrides
// AUTO: %[[S0:.*]] = tgc_sym.symbol "s0" range [2, inf] hint 5 from arg 0 dim 1
// AUTO: tgc_sym.bind %arg0 [3, %[[S0]]]
// AUTO: tgc_sym.bind %arg1 [9] {tgc.reasons = ["specialized to the example size 9 (policy auto: static until the size changes)"]}
func.func @overrides(%x: tensor<?x?xf32> {tgc.example_shape = array<i64: 3, 5>, tgc.static_dims = array<i64: 0>, tgc.changed_dims = array<i64: 1>, tgc.dynamic_dims = array<i64: 1>},
                     %y: tensor<?xf32> {tgc.example_shape = array<i64: 9>}) {
  return
}

// -----

// expected-error @+1 {{example shape of argument 0 has 1 sizes but the argument has rank 2}}
func.func @bad_example_rank(%x: tensor<?x4xf32> {tgc.example_shape = array<i64: 3>}) {
  return
}

// -----

// expected-error @+1 {{example size 5 of argument 0 dim 1 contradicts its static size 4}}
func.func @bad_example_size(%x: tensor<?x4xf32> {tgc.example_shape = array<i64: 3, 5>}) {
  return
}

// -----

// expected-error @+1 {{dimension 3 in the attributes of argument 0 is out of range for rank 1}}
func.func @bad_dims(%x: tensor<?xf32> {tgc.dynamic_dims = array<i64: 3>}) {
  return
}
