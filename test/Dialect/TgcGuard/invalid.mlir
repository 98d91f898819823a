// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'tgc_guard.guard_set' op guards unknown function @f}}
tgc_guard.guard_set for @f {
}

// -----

module @f {
}
// expected-error @below {{'tgc_guard.guard_set' op @f is not a function}}
tgc_guard.guard_set for @f {
}

// -----

func.func @g() {
  // expected-error @below {{'tgc_guard.guard_set' op expects parent op 'builtin.module'}}
  tgc_guard.guard_set for @g {
  }
  return
}

// -----

func.func private @f()
// expected-error @below {{'tgc_guard.guard_set' op body must not have arguments}}
"tgc_guard.guard_set"() <{function = @f}> ({
^bb0(%a: index):
}) : () -> ()

// -----

func.func private @f()
// expected-error @below {{'tgc_guard.guard_set' op region #0 ('bodyRegion') failed to verify constraint: region with 1 blocks}}
"tgc_guard.guard_set"() <{function = @f}> ({
}) : () -> ()

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{'tgc_sym.constrain' op is not allowed in a guard set (only tgc_sym.symbol, tgc_sym.min, tgc_sym.max and guard checks)}}
  tgc_sym.constrain ge [%s0, 10] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_sym.symbol' op in a guard set must have 'from arg N dim D' (guards read sizes from the arguments)}}
  %s0 = tgc_sym.symbol "s0" range [2, inf]
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-note @below {{first used here}}
  %a = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{'tgc_sym.symbol' op name 's0' is already used by another symbol in this function or guard set}}
  %b = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_sym.symbol' op arg 1 is out of range: @f has 1 arguments}}
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 1 dim 0
}

// -----

func.func private @f(%x: tensor<?xf32>, %n: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_sym.symbol' op arg 1 must be a ranked tensor, got 'i64'}}
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 1 dim 0
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_sym.symbol' op dim 1 is out of range: arg 0 has rank 1}}
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 1
}

// -----

// expected-error @below {{'tgc_guard.dtype' op expects parent op 'tgc_guard.guard_set'}}
tgc_guard.dtype arg 0 is f32 reason "r"

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.contiguous' op reason must not be empty}}
  tgc_guard.contiguous arg 0 reason ""
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.dtype' op attribute 'arg' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  tgc_guard.dtype arg -1 is f32 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.dtype' op arg 1 is out of range: @f has 1 arguments}}
  tgc_guard.dtype arg 1 is f32 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>, %k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.dtype' op arg 1 must be a tensor, got 'i64'}}
  tgc_guard.dtype arg 1 is i64 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.dtype' op expects element type 'f16' but arg 0 has element type 'f32'}}
  tgc_guard.dtype arg 0 is f16 reason "r"
}

// -----

// ui8 guards only the i8 storage of a uint8 tensor.
func.func private @f(%x: tensor<?xi32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.dtype' op expects element type 'ui8' but arg 0 has element type 'i32'}}
  tgc_guard.dtype arg 0 is ui8 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.rank' op expects rank 2 but arg 0 has rank 1}}
  tgc_guard.rank arg 0 is 2 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.rank' op attribute 'rank' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  tgc_guard.rank arg 0 is -1 reason "r"
}

// -----

func.func private @f(%k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.rank' op arg 0 must be a tensor, got 'i64'}}
  tgc_guard.rank arg 0 is 0 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.device' op device 'tpu' is not "cpu", "cuda" or "cuda:N"}}
  tgc_guard.device arg 0 is "tpu" reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.device' op device 'cuda:' is not "cpu", "cuda" or "cuda:N"}}
  tgc_guard.device arg 0 is "cuda:" reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.device' op device index 2147483648 does not fit in 32 bits}}
  tgc_guard.device arg 0 is "cuda:2147483648" reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.device' op device index 99999999999999999999 does not fit in 32 bits}}
  tgc_guard.device arg 0 is "cuda:99999999999999999999" reason "r"
}

// -----

func.func private @f(%k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.device' op arg 0 must be a tensor, got 'i64'}}
  tgc_guard.device arg 0 is "cpu" reason "r"
}

// -----

func.func private @f(%k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.contiguous' op arg 0 must be a tensor, got 'i64'}}
  tgc_guard.contiguous arg 0 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.aligned' op alignment 12 is not a positive power of two}}
  tgc_guard.aligned arg 0 to 12 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.aligned' op alignment 0 is not a positive power of two}}
  tgc_guard.aligned arg 0 to 0 reason "r"
}

// -----

func.func private @f(%k: index)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.aligned' op arg 0 must be a tensor, got 'index'}}
  tgc_guard.aligned arg 0 to 16 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.no_alias' op needs two different arguments, got arg 0 twice}}
  tgc_guard.no_alias arg 0, arg 0 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>, %k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.no_alias' op arg 1 must be a tensor, got 'i64'}}
  tgc_guard.no_alias arg 0, arg 1 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.no_alias' op arg 3 is out of range: @f has 1 arguments}}
  tgc_guard.no_alias arg 3, arg 0 reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.no_alias_outs' op needs at least one out argument}}
  tgc_guard.no_alias_outs outs [] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>, %y: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.no_alias_outs' op lists arg 1 twice}}
  tgc_guard.no_alias_outs outs [1, 0, 1] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.no_alias_outs' op has a negative argument index -1}}
  tgc_guard.no_alias_outs outs [-1] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>, %k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.no_alias_outs' op arg 1 must be a tensor, got 'i64'}}
  tgc_guard.no_alias_outs outs [0, 1] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.no_alias_outs' op arg 2 is out of range: @f has 1 arguments}}
  tgc_guard.no_alias_outs outs [2] reason "r"
}

// -----

func.func private @f(%k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.scalar' op upper bound 2 is less than lower bound 3}}
  tgc_guard.scalar arg 0 in [3, 2] reason "r"
}

// -----

func.func private @f(%x: tensor<i64>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.scalar' op arg 0 must be an integer or index scalar, got 'tensor<i64>'}}
  tgc_guard.scalar arg 0 in [0, 10] reason "r"
}

// -----

func.func private @f(%x: f32)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.scalar' op arg 0 must be an integer or index scalar, got 'f32'}}
  tgc_guard.scalar arg 0 in [0, 10] reason "r"
}

// -----

func.func private @f(%k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.scalar' op arg 1 is out of range: @f has 1 arguments}}
  tgc_guard.scalar arg 1 in [0, 10] reason "r"
}

// -----

func.func private @f(%k: i64)
tgc_guard.guard_set for @f {
  // expected-error @below {{bound does not fit in 64 bits}}
  tgc_guard.scalar arg 0 in [-9223372036854775809, 10] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{'tgc_guard.range' op upper bound 5 is less than lower bound 10}}
  tgc_guard.range %s0 in [10, 5] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{'tgc_guard.range' op attribute 'lower' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  tgc_guard.range %s0 in [-1, 5] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{'tgc_guard.relation' op expected 2 expressions [lhs, rhs], got 1}}
  tgc_guard.relation eq [%s0] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{'tgc_guard.relation' op divisible needs a positive divisor, got -4}}
  tgc_guard.relation divisible [%s0, -4] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  // expected-error @below {{'tgc_guard.relation' op constraint is always false: 4 <= 3}}
  tgc_guard.relation le [4, 3] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{'tgc_guard.relation' op constraint map must not have dimensions (got 1); sizes are map symbols}}
  "tgc_guard.relation"(%s0) <{kind = 0 : i32, map = affine_map<(d0) -> (d0, 3)>, reason = "r"}> : (!tgc_sym.size) -> ()
}

// -----

#map = affine_map<()[s0, s1] -> (s0, s1)>
func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{'tgc_guard.relation' op constraint map has 2 symbols but there are 1 size operands}}
  "tgc_guard.relation"(%s0) <{kind = 0 : i32, map = #map, reason = "r"}> : (!tgc_sym.size) -> ()
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{expected a size expression: an SSA size value, an integer or '('}}
  tgc_guard.relation eq [%s0 +, 3] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{expected a size expression: an SSA size value, an integer or '('}}
  tgc_guard.relation eq [%s0 * , 3] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{expected ')'}}
  tgc_guard.relation eq [((%s0 + 1), 3] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{expected ',' or ']' after a size expression}}
  tgc_guard.relation eq [%s0), 3] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{expected a positive divisor, got 0}}
  tgc_guard.relation eq [%s0 mod 0, 3] reason "r"
}

// -----

func.func private @f(%x: tensor<?xf32>)
tgc_guard.guard_set for @f {
  %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
  // expected-error @below {{use of undeclared SSA value name}}
  tgc_guard.relation eq [%s0, %x] reason "r"
}
