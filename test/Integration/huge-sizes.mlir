// Sizes whose byte counts overflow 64 bits, or that no machine can map,
// end with an error naming the buffer, never a crash or heap corruption
// (tgc-check-allocations; the reference interpreter refuses tensors larger
// than the machine's memory). The inputs are small: the sizes come from
// products of their sizes, or from static types.

// 2^21 * 2^21 * 2^16 f32: 2^60 bytes, more than any address space.
// RUN: not tgc-run %s --entry enormous --shape 0=2097152 --shape 1=2097152 --shape 2=65536 2>&1 | FileCheck %s --check-prefix=ENORMOUS
// ENORMOUS: tgc-run: error: @enormous: cannot allocate 1152921504606846976 bytes (1.0 EiB) for a ?xf32 buffer at {{.*}}huge-sizes.mlir:[[#@LINE+28]]:8 (out of memory)
// 2^63 elements: the element count itself wraps around to a negative size.
// RUN: not tgc-run %s --entry enormous --shape 0=2097152 --shape 1=2097152 --shape 2=2097152 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: tgc-run: error: @enormous: cannot allocate a ?xf32 buffer at {{.*}}: its size in bytes does not fit in a 64-bit integer
// An intermediate value of 2^52 bytes (4 PiB): the arena.
// RUN: not tgc-run %s --entry outer --shape 0=67108864x1 --shape 1=1x67108864 2>&1 | FileCheck %s --check-prefix=ARENA
// ARENA: tgc-run: error: @outer: cannot allocate 4503599627370496 bytes (4.0 PiB) for the arena of intermediate values (out of memory)
// A later allocation fails after earlier results and the arena were
// allocated: the failure frees each of them once (a double free would abort).
// RUN: not tgc-run %s --entry later --shape 0=2097152 --shape 1=2097152 --shape 2=65536 2>&1 | FileCheck %s --check-prefix=LATER
// LATER: tgc-run: error: @later: cannot allocate 1152921504606846976 bytes (1.0 EiB) for a ?xf32 buffer at {{.*}}huge-sizes.mlir:[[#@LINE+32]]:8 (out of memory)
// Static types: a compile-time error, and the reference interpreter's own.
// RUN: not tgc-run %s --entry expand 2>&1 | FileCheck %s --check-prefix=EXPAND
// EXPAND: error: a buffer of 'memref<4611686018427387904x4xf32>' needs more bytes than a 64-bit integer holds
// RUN: not tgc-run %s --entry iota 2>&1 | FileCheck %s --check-prefix=IOTA
// IOTA: error: a buffer of 'memref<9223372036854775807xi64>' needs more bytes than a 64-bit integer holds
// RUN: not tgc-run %s --entry splat 2>&1 | FileCheck %s --check-prefix=SPLAT
// SPLAT: tgc-run: error: @splat: cannot allocate 4000000000000000 bytes (3.6 PiB) for a 1000000000x1000000xf32 buffer at {{.*}}huge-sizes.mlir:[[#@LINE+46]]:8 (out of memory)
// RUN: not tgc-run %s --entry splat --check reference 2>&1 | FileCheck %s --check-prefix=REFERENCE
// REFERENCE: error: 'tgc.constant' op the reference interpreter cannot allocate 4000000000000000 bytes for a 1000000000x1000000xf32 tensor (more than this machine's memory)

func.func @enormous(%a: tensor<?xi8>, %b: tensor<?xi8>, %c: tensor<?xi8>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %a, %c0 : tensor<?xi8>
  %d1 = tensor.dim %b, %c0 : tensor<?xi8>
  %d2 = tensor.dim %c, %c0 : tensor<?xi8>
  %n0 = arith.muli %d0, %d1 : index
  %n = arith.muli %n0, %d2 : index
  %f = tgc.full 1.0 : f32 [%n] : tensor<?xf32>
  return %f : tensor<?xf32>
}

func.func @later(%a: tensor<?xi8>, %b: tensor<?xi8>, %c: tensor<?xi8>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %a, %c0 : tensor<?xi8>
  %d1 = tensor.dim %b, %c0 : tensor<?xi8>
  %d2 = tensor.dim %c, %c0 : tensor<?xi8>
  %small = tgc.full 1.0 : f32 [%d0] : tensor<?xf32>
  %e = tgc.exp %small : tensor<?xf32>
  %twice = tgc.add %e, %e : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  %n0 = arith.muli %d0, %d1 : index
  %n = arith.muli %n0, %d2 : index
  %f = tgc.full 1.0 : f32 [%n] : tensor<?xf32>
  return %small, %twice, %f : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

func.func @outer(%a: tensor<?x1xi8>, %b: tensor<1x?xi8>) -> tensor<i8> {
  %m = tgc.matmul %a, %b : tensor<?x1xi8>, tensor<1x?xi8> -> tensor<?x?xi8>
  %s = tgc.amax %m dims [0, 1] : tensor<?x?xi8> -> tensor<i8>
  return %s : tensor<i8>
}

func.func @expand(%a: tensor<1x4xf32>) -> tensor<4611686018427387904x4xf32> {
  %e = tgc.expand %a : tensor<1x4xf32> -> tensor<4611686018427387904x4xf32>
  return %e : tensor<4611686018427387904x4xf32>
}

func.func @iota() -> tensor<9223372036854775807xi64> {
  %i = tgc.iota 0 : i64, 1 : i64 : tensor<9223372036854775807xi64>
  return %i : tensor<9223372036854775807xi64>
}

func.func @splat() -> tensor<1000000000x1000000xf32> {
  %c = tgc.constant dense<1.0> : tensor<1000000000x1000000xf32>
  return %c : tensor<1000000000x1000000xf32>
}
