// RUN: tgc-opt %s -tgc-check-symbol-names -split-input-file -verify-diagnostics | FileCheck %s

// A function named like a libm function that the code calls (tgc.exp on
// f64 lowers to a call of `exp`): it would call itself.
// expected-error @+1 {{function @exp has a reserved name: it is the name of a C library or math library function that compiled code calls}}
func.func @exp(%a: tensor<4xf64>) -> tensor<4xf64> {
  %e = tgc.exp %a : tensor<4xf64>
  return %e : tensor<4xf64>
}

// -----

// The f32 and long double forms, and the C library's memory functions.
// expected-error @+1 {{function @cosf has a reserved name}}
func.func @cosf(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{function @memcpy has a reserved name}}
func.func @memcpy(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{function @__main has a reserved name: names beginning with '__' are reserved}}
func.func @__main(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{names beginning with 'tgc_guard_' are reserved}}
func.func @tgc_guard_f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{names beginning with 'tgc_result_' are reserved}}
func.func @tgc_result_buffer(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// Names that only resemble library functions are fine, and so is a
// declaration (it names the library function itself).
// CHECK-LABEL: func.func @exponential
// CHECK-LABEL: func.func @f_exp
// CHECK: func.func private @exp(f64) -> f64
func.func @exponential(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @f_exp(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @exp(f64) -> f64
