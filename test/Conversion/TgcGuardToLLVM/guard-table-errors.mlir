// RUN: tgc-opt %s -split-input-file -verify-diagnostics -tgc-lower-guards="table-min-guards=0"

// The guard function of a function named ".check_table" takes the loop's
// name with another signature: an error, not a call of the wrong function.
func.func private @".check_table"(tensor<?xf32>)
func.func private @g(tensor<?xf32>)

tgc_guard.guard_set for @".check_table" {
  %s0 = tgc_sym.symbol "s0" range [0, inf] from arg 0 dim 0
  tgc_guard.relation divisible [%s0, 8] reason "code only"
}

// expected-error @below {{'tgc_guard.guard_set' op symbol @tgc_guard_.check_table already exists}}
tgc_guard.guard_set for @g {
  tgc_guard.rank arg 0 is 1 reason "rank"
}

// -----

// A function's table name taken.
func.func private @f(tensor<?xf32>)
llvm.mlir.global internal constant @"tgc_guard_f.table"(0 : i64) : i64

// expected-error @below {{'tgc_guard.guard_set' op symbol @tgc_guard_f.table already exists}}
tgc_guard.guard_set for @f {
  tgc_guard.rank arg 0 is 1 reason "rank"
}

// -----

// Two sets share the loop.
func.func private @a(tensor<?xf32>)
func.func private @b(tensor<?xf32>)
tgc_guard.guard_set for @a {
  tgc_guard.rank arg 0 is 1 reason "rank"
}
tgc_guard.guard_set for @b {
  tgc_guard.dtype arg 0 is f32 reason "dtype"
}
