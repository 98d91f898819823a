// Bad input to tgc-run: each case is a clear `tgc-run: error:` and a
// non-zero exit, never a crash or a silent run.

// Wrong number of .npy inputs.
// RUN: %python %S/Inputs/npy.py %t.x.npy f4 3x4 1 2 3 4 5 6 7 8 9 10 11 12
// RUN: not tgc-run %s --entry add --inputs %t.x.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: tgc-run: error: @add takes 2 arguments, --inputs gives 1

// RUN: not tgc-run %s --entry add --inputs %t.x.npy,%t.x.npy --calls 0=3x4 --calls 0=5x4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CALLS
// CALLS: tgc-run: error: --inputs gives the inputs of one call; don't combine it with several --calls

// A missing file, a file that is not .npy, a .npy whose data is shorter than
// its shape, and a .npy of the wrong dtype.
// RUN: not tgc-run %s --entry add --inputs %t.x.npy,%t.missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tgc-run: error: cannot read input file '{{.*}}missing.npy'
// RUN: echo "not a numpy file" > %t.text.npy
// RUN: not tgc-run %s --entry add --inputs %t.x.npy,%t.text.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: tgc-run: error: '{{.*}}text.npy' is not a .npy file
// A format version numpy does not write (the layout may differ): the
// version byte of a valid file set to 9.
// RUN: %python -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[6] = 9; open(sys.argv[2], 'wb').write(d)" %t.x.npy %t.v9.npy
// RUN: not tgc-run %s --entry add --inputs %t.x.npy,%t.v9.npy 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: tgc-run: error: '{{.*}}v9.npy': .npy format version 9.0 is not supported (1.0, 2.0 and 3.0 are)
// Tolerances that would turn the check off, and an unknown policy.
// RUN: not tgc-run %s --entry add --rtol=nan --check reference 2>&1 | FileCheck %s --check-prefix=RTOL
// RTOL: tgc-run: error: --rtol must be a finite number >= 0, got nan
// RUN: not tgc-run %s --entry add --atol=-1 --check reference 2>&1 | FileCheck %s --check-prefix=ATOL
// ATOL: tgc-run: error: --atol must be a finite number >= 0, got -1.000000
// RUN: not tgc-run %s --entry add --policy dynamc 2>&1 | FileCheck %s --check-prefix=POLICY
// POLICY: tgc-run: for the --policy option: 'dynamc' is not static, dynamic or auto
// A .npy header with absurd sizes is rejected before anything is
// allocated, and so is a --shape too large for the machine's memory.
// RUN: %python %S/Inputs/npy.py %t.huge.npy f4 100000000000x100000 1 2 3
// RUN: not tgc-run %s --entry add --inputs %t.x.npy,%t.huge.npy 2>&1 | FileCheck %s --check-prefix=HUGE-NPY
// HUGE-NPY: tgc-run: error: '{{.*}}huge.npy': expected 40000000000000000 bytes of data, the file has 12
// RUN: not tgc-run %s --entry add --shape 0=99999999999x4 --shape 1=99999999999x4 2>&1 | FileCheck %s --check-prefix=HUGE-SHAPE
// HUGE-SHAPE: tgc-run: error: call 0: argument 0 (99999999999x4) would need 1599999999984 bytes, more than half of this machine's memory
// RUN: %python %S/Inputs/npy.py %t.short.npy f4 3x4 1 2 3
// RUN: not tgc-run %s --entry add --inputs %t.x.npy,%t.short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: tgc-run: error: '{{.*}}short.npy': expected 48 bytes of data, the file has 12
// RUN: %python %S/Inputs/npy.py %t.int.npy i4 3x4 1 2 3 4 5 6 7 8 9 10 11 12
// RUN: not tgc-run %s --entry add --inputs %t.x.npy,%t.int.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: tgc-run: error: input 1 ('{{.*}}int.npy') is i32, the argument is f32

// A function that is not there, or no --entry with several functions.
// RUN: not tgc-run %s --entry nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: tgc-run: error: no function @nope with a body in '{{.*}}bad-input.mlir'
// RUN: not tgc-run %s 2>&1 | FileCheck %s --check-prefix=SEVERAL
// SEVERAL: tgc-run: error: several public functions in '{{.*}}bad-input.mlir': choose one with --entry

// Sizes that contradict the signature: a static dim, the rank, through
// --shape and through a .npy; a `?` dim with no size given.
// RUN: not tgc-run %s --entry add --shape 0=3x5 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: tgc-run: error: call 0: argument 0 dim 1 is 4 in the signature of @add, got 5
// RUN: not tgc-run %s --entry add --shape 0=3x4x1 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not tgc-run %s --entry add --shape 1=3x4 --calls 0=3x4 --calls 0=12 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: tgc-run: error: call {{[01]}}: argument 0 has rank 2 but the sizes given have {{[13]}}
// RUN: %python %S/Inputs/npy.py %t.wide.npy f4 2x5 1 2 3 4 5 6 7 8 9 10
// RUN: not tgc-run %s --entry add --inputs %t.x.npy,%t.wide.npy 2>&1 | FileCheck %s --check-prefix=NPYSHAPE
// NPYSHAPE: tgc-run: error: --inputs: argument 1 dim 1 is 4 in the signature of @add, got 5
// RUN: not tgc-run %s --entry add 2>&1 | FileCheck %s --check-prefix=UNSIZED
// UNSIZED: tgc-run: error: call 0: argument 0 has `?` sizes (?x4): give them with --shape x=...
// RUN: not tgc-run %s --entry add --shape 0=3xfour 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: tgc-run: error: --shape: bad sizes '3xfour' (expected D0xD1x...)
// RUN: not tgc-run %s --entry add --shape 2=3x4 2>&1 | FileCheck %s --check-prefix=NOARG
// NOARG: tgc-run: error: --shape: no argument '2' in @add (its arguments: 0 (x), 1 (y))

// Sizes the compiled code's guards reject: topk(x, 10) compiles for the
// first call (size 12) under s0 >= 10; a call of size 7 fails that guard
// and its own compilation rejects it as well.
// RUN: not tgc-run %s --entry topk --calls 0=12 --calls 0=7 2>&1 | FileCheck %s --check-prefix=GUARD
// GUARD: tgc-run: error: topk: compile failed: {{.*}}s0 >= 10 (tgc.topk needs k (10) <= size of dim 0{{.*}}): s0 = 7

// An index out of range in the inputs: the reference interpreter reports
// it at the op (before the compiled code runs).
// RUN: %python %S/Inputs/npy.py %t.w.npy f4 4x2 1 2 3 4 5 6 7 8
// RUN: %python %S/Inputs/npy.py %t.ids.npy i8 3 0 3 4
// RUN: not tgc-run %s --entry embed --inputs %t.w.npy,%t.ids.npy --check reference 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: error: 'tgc.embedding' op index 4 at position [2] is out of range
// INDEX: tgc-run: error: the reference interpreter failed on call 0
// Without the reference, the compiled code checks the data itself: the
// call fails with the op's message and location (tgc-report-checks), the
// process goes on; so does an integer division by zero and a cholesky of
// a matrix that is not positive-definite.
// RUN: not tgc-run %s --entry embed --inputs %t.w.npy,%t.ids.npy 2>&1 | FileCheck %s --check-prefix=DATA
// DATA: tgc-run: error: @embed: tgc.embedding: index out of range at {{.*}}bad-input.mlir:[[#@LINE+34]]:8 (the call's results are not valid)
// A scatter_add index out of range (an embedding's backward with a
// negative id) fails the same way, before anything is written.
// RUN: %python %S/Inputs/npy.py %t.g.npy f4 3x2 1 2 3 4 5 6
// RUN: %python %S/Inputs/npy.py %t.sids.npy i8 3 0 -1 2
// RUN: not tgc-run %s --entry scatter --inputs %t.w.npy,%t.sids.npy,%t.g.npy --check reference 2>&1 | FileCheck %s --check-prefix=SINDEX
// SINDEX: error: 'tgc.scatter_add' op index -1 at position [1] is out of range for dimension 0 of size 4
// RUN: not tgc-run %s --entry scatter --inputs %t.w.npy,%t.sids.npy,%t.g.npy 2>&1 | FileCheck %s --check-prefix=SDATA
// SDATA: tgc-run: error: @scatter: tgc.scatter_add: index out of range at {{.*}}bad-input.mlir:{{[0-9]+}}:8 (the call's results are not valid)
// RUN: %python %S/Inputs/npy.py %t.num.npy i8 3 7 8 9
// RUN: %python %S/Inputs/npy.py %t.den.npy i8 3 2 0 3
// RUN: not tgc-run %s --entry divide --inputs %t.num.npy,%t.den.npy 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: tgc-run: error: @divide: tgc.div: integer division by zero at {{.*}}bad-input.mlir:{{[0-9]+}}:8 (the call's results are not valid)
// RUN: %python %S/Inputs/npy.py %t.neg.npy f4 2x2 -1 0 0 1
// RUN: not tgc-run %s --entry cholesky --inputs %t.neg.npy 2>&1 | FileCheck %s --check-prefix=PD
// PD: tgc-run: error: @cholesky: tgc.cholesky: the input is not positive-definite at {{.*}}bad-input.mlir:{{[0-9]+}}:8 (the call's results are not valid)

// A file that does not parse.
// RUN: echo "func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> {" > %t.bad.mlir
// RUN: not tgc-run %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error:
// PARSE: tgc-run: error: cannot parse '{{.*}}bad.mlir'

func.func @add(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %z = tgc.add %x, %y : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}

func.func @topk(%x: tensor<?xf32>) -> (tensor<10xf32>, tensor<10xi64>) {
  %v, %i = tgc.topk %x k = 10 dim = 0 : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
  return %v, %i : tensor<10xf32>, tensor<10xi64>
}

func.func @embed(%w: tensor<4x2xf32>, %ids: tensor<3xi64>) -> tensor<3x2xf32> {
  %e = tgc.embedding %w, %ids : tensor<4x2xf32>, tensor<3xi64> -> tensor<3x2xf32>
  return %e : tensor<3x2xf32>
}

func.func @scatter(%w: tensor<4x2xf32>, %ids: tensor<3xi64>, %g: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %s = tgc.scatter_add %w, %ids, %g dim = 0 : tensor<4x2xf32>, tensor<3xi64>, tensor<3x2xf32> -> tensor<4x2xf32>
  return %s : tensor<4x2xf32>
}

func.func @divide(%x: tensor<3xi64>, %y: tensor<3xi64>) -> tensor<3xi64> {
  %q = tgc.div %x, %y rounding = floor : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  return %q : tensor<3xi64>
}

func.func @cholesky(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %l = tgc.cholesky %a : tensor<2x2xf32>
  return %l : tensor<2x2xf32>
}
