// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'tgc_sym.symbol' op name '1s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)}}
%s = tgc_sym.symbol "1s" range [2, inf]

// -----

// expected-error @below {{name '' is not an identifier}}
%s = tgc_sym.symbol "" range [2, inf]

// -----

// expected-error @below {{'tgc_sym.symbol' op lower bound -1 is negative}}
%s = tgc_sym.symbol "s0" range [-1, inf]

// -----

// expected-error @below {{'tgc_sym.symbol' op upper bound 3 is less than lower bound 5}}
%s = tgc_sym.symbol "s0" range [5, 3]

// -----

// expected-error @below {{'tgc_sym.symbol' op hint 11 is outside the range [2, 10]}}
%s = tgc_sym.symbol "s0" range [2, 10] hint 11

// -----

// expected-error @below {{'tgc_sym.symbol' op hint 1 is outside the range [2, inf]}}
%s = tgc_sym.symbol "s0" range [2, inf] hint 1

// -----

// expected-error @below {{'tgc_sym.symbol' op 'arg' and 'dim' must be given together}}
%s = "tgc_sym.symbol"() <{arg = 0 : i64, lower = 2 : i64, name = "s0"}> : () -> !tgc_sym.size

// -----

// expected-error @below {{'tgc_sym.symbol' op arg index -1 is negative}}
%s = tgc_sym.symbol "s0" range [2, inf] from arg -1 dim 0

// -----

// expected-error @below {{'tgc_sym.symbol' op dim index -2 is negative}}
%s = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim -2

// -----

func.func @f(%x: tensor<?xf32>) {
  // expected-error @below {{'tgc_sym.symbol' op arg 1 is out of range: @f has 1 arguments}}
  %s = tgc_sym.symbol "s0" range [2, inf] from arg 1 dim 0
  return
}

// -----

func.func @f(%x: tensor<?xf32>, %n: i64) {
  // expected-error @below {{'tgc_sym.symbol' op arg 1 must be a ranked tensor, got 'i64'}}
  %s = tgc_sym.symbol "s0" range [2, inf] from arg 1 dim 0
  return
}

// -----

func.func @f(%x: tensor<*xf32>) {
  // expected-error @below {{'tgc_sym.symbol' op arg 0 must be a ranked tensor, got 'tensor<*xf32>'}}
  %s = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  return
}

// -----

func.func @f(%x: tensor<?x?xf32>) {
  // expected-error @below {{'tgc_sym.symbol' op dim 2 is out of range: arg 0 has rank 2}}
  %s = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 2
  return
}

// -----

func.func @f() {
  // expected-note @below {{first used here}}
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.symbol' op name 's0' is already used by another symbol in this function or guard set}}
  %s1 = tgc_sym.symbol "s0" range [2, inf]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.min' op name 'a b' is not an identifier}}
  %m = tgc_sym.min "a b" [%s0, 4]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.max' op size map must not have dimensions (got 1); sizes are map symbols}}
  %m = "tgc_sym.max"(%s0) <{map = affine_map<(d0)[s0] -> (d0, s0)>}> : (!tgc_sym.size) -> !tgc_sym.size
  return
}

// -----

#map = affine_map<()[s0, s1] -> (s0, s1)>
func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.min' op size map has 2 symbols but there are 1 size operands}}
  %m = "tgc_sym.min"(%s0) <{map = #map}> : (!tgc_sym.size) -> !tgc_sym.size
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.min' op expected at least 2 expressions, got 1}}
  %m = tgc_sym.min [%s0]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.max' op expected at least 2 expressions, got 1}}
  %m = tgc_sym.max [%s0 + 1]
  return
}

// -----

func.func @f(%x: tensor<?xf32>) {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.bind' op shape map must not have dimensions (got 1); sizes are map symbols}}
  "tgc_sym.bind"(%x, %s0) <{shape = affine_map<(d0) -> (d0)>}> : (tensor<?xf32>, !tgc_sym.size) -> ()
  return
}

// -----

#map = affine_map<()[s0, s1] -> (s0)>
func.func @f(%x: tensor<?xf32>) {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.bind' op shape map has 2 symbols but there are 1 size operands}}
  "tgc_sym.bind"(%x, %s0) <{shape = #map}> : (tensor<?xf32>, !tgc_sym.size) -> ()
  return
}

// -----

func.func @f(%x: tensor<?x?xf32>) {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.bind' op has 1 size expressions for a tensor of rank 2}}
  tgc_sym.bind %x [%s0] : tensor<?x?xf32>
  return
}

// -----

func.func @f(%x: tensor<?x3xf32>) {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.bind' op dim 1 is static (3) but bound to s0}}
  tgc_sym.bind %x [%s0, %s0] : tensor<?x3xf32>
  return
}

// -----

func.func @f(%x: tensor<?x3xf32>) {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.bind' op dim 1 is static (3) but bound to 4}}
  tgc_sym.bind %x [%s0 * 2 + 1, 4] : tensor<?x3xf32>
  return
}

// -----

func.func @f(%x: tensor<?xf32>, %i: index) {
  // expected-error @below {{operand #1 must be variadic of symbolic non-negative integer size, but got 'index'}}
  "tgc_sym.bind"(%x, %i) <{shape = affine_map<()[s0] -> (s0)>}> : (tensor<?xf32>, index) -> ()
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.constrain' op reason must not be empty}}
  tgc_sym.constrain ge [%s0, 10] reason ""
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.constrain' op constraint map must not have dimensions (got 1); sizes are map symbols}}
  "tgc_sym.constrain"(%s0) <{kind = 1 : i32, map = affine_map<(d0) -> (d0, 10)>, reason = "r"}> : (!tgc_sym.size) -> ()
  return
}

// -----

#map = affine_map<()[s0, s1] -> (s0, 10)>
func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.constrain' op constraint map has 2 symbols but there are 1 size operands}}
  "tgc_sym.constrain"(%s0) <{kind = 1 : i32, map = #map, reason = "r"}> : (!tgc_sym.size) -> ()
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.constrain' op expected 2 expressions [lhs, rhs], got 3}}
  tgc_sym.constrain eq [%s0, 10, 4] reason "r"
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.constrain' op divisible needs a positive divisor, got 0}}
  tgc_sym.constrain divisible [%s0, 0] reason "r"
  return
}

// -----

func.func @f() {
  // expected-error @below {{'tgc_sym.constrain' op constraint is always false: 3 >= 10}}
  tgc_sym.constrain ge [3, 10] reason "r"
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // Simplifies to constants: s0 - s0 == 0.
  // expected-error @below {{'tgc_sym.constrain' op constraint is always false: 0 == 1}}
  tgc_sym.constrain eq [%s0 - %s0, 1] reason "r"
  return
}

// -----

func.func @f() {
  // expected-error @below {{'tgc_sym.constrain' op constraint is always false: broadcastable(2, 3)}}
  tgc_sym.constrain broadcastable [2, 3] reason "r"
  return
}

// -----

func.func @f() {
  // expected-error @below {{'tgc_sym.constrain' op constraint is always false: 10 mod 4 == 0}}
  tgc_sym.constrain divisible [10, 4] reason "r"
  return
}

// -----

func.func @f() {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'kind' [eq, ge, le, divisible, broadcastable]}}
  tgc_sym.constrain bigger [3, 10] reason "r"
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{expected a size expression: an SSA size value, an integer or '('}}
  %m = tgc_sym.min [%s0 +, 3]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{expected a size expression: an SSA size value, an integer or '('}}
  %m = tgc_sym.min [%s0 * ]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{expected a size expression: an SSA size value, an integer or '('}}
  %m = tgc_sym.min [%s0 floordiv -, 2]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{expected ')'}}
  %m = tgc_sym.min [(%s0 + 1, 3]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{expected ',' or ']' after a size expression}}
  %m = tgc_sym.min [%s0 + 1), 3]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  %s1 = tgc_sym.symbol "s1" range [2, inf]
  // expected-error @below {{expected ',' or ']' after a size expression}}
  %m = tgc_sym.min [%s0 %s1]
  return
}

// -----

// The old `symbol(...)` operand syntax is gone: every operand is a symbol.
func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{expected a size expression: an SSA size value, an integer or '('}}
  %m = tgc_sym.min [symbol(%s0), 3]
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @f(%i: index) {
  // expected-error @below {{use of value '%i' expects different type than prior uses: '!tgc_sym.size' vs 'index'}}
  %m = tgc_sym.min [%i, 3]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{expected a positive divisor, got 0}}
  %m = tgc_sym.min [%s0 floordiv 0, 3]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{expected a positive divisor, got -4}}
  %m = tgc_sym.min [%s0 mod -4, 3]
  return
}

// -----

func.func @f() {
  %s0 = tgc_sym.symbol "s0" range [2, inf]
  // expected-error @below {{'tgc_sym.min' op size map divides by 0; constant divisors must be positive}}
  %m = "tgc_sym.min"(%s0) <{map = affine_map<()[s0] -> (s0 ceildiv 0, 3)>}> : (!tgc_sym.size) -> !tgc_sym.size
  return
}

// -----

func.func @f() {
  // expected-error @below {{integer does not fit in 64 bits}}
  %m = tgc_sym.min [18446744073709551616, 3]
  return
}

// -----

func.func @f() {
  // expected-error @below {{size expression overflows 64 bits}}
  %m = tgc_sym.min [9223372036854775807 + 1, 3]
  return
}

// -----

func.func @f() {
  // expected-error @below {{size expression overflows 64 bits}}
  %m = tgc_sym.min [--9223372036854775808, 3]
  return
}
