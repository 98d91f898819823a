// RUN: tgc-opt %s -tgc-symbolize-shapes="default-policy=static" -split-input-file -verify-diagnostics
// RUN: not tgc-opt %s -tgc-symbolize-shapes="default-policy=sometimes" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not tgc-opt %s -tgc-symbolize-shapes="example-shapes=0=7xq" 2>&1 | FileCheck %s --check-prefix=OPTION

// A bad policy fails when the option is parsed, before the pass runs.
// POLICY: error: tgc-symbolize-shapes: default-policy 'sometimes' is not static, dynamic or auto
// POLICY-NOT: see current operation
// OPTION: example-shapes: bad size 'q' in '0=7xq'

// expected-error @+1 {{argument 0 dim 0 is specialized (policy static) but has no example size: give one with tgc.example_shape or example-shapes}}
func.func @static_needs_example(%x: tensor<?xf32>) {
  return
}
