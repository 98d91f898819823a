// Elementwise unary ops compiled for the CPU against the reference
// interpreter: every float op in f32 with a dynamic batch (two sizes, one
// compile) and on special values (inf, NaN, -0, denormals) read from a
// .npy file, the transcendental ones again in f16 and bf16, the integer
// ones in i32/i64, and round/floor/ceil on exact halves and signed zeros
// (round is half to even).

// RUN: tgc-run %s --entry f32_ops --calls 0=3x17,1=3x17 --calls 0=40x17,1=40x17 \
// RUN:   --check reference --json | FileCheck %s --check-prefix=F32
// F32:      "calls": 2,
// F32:      "compiles": 1,
// F32:      "reference_ok": true

// RUN: tgc-run %s --entry low_precision_and_int_ops --check reference | FileCheck %s --check-prefix=LOW
// LOW: reference check: ok

// Infinities, NaN, signed zeros, denormals, overflow and huge arguments
// through every f32 op.
// RUN: %python %S/Inputs/npy.py %t.special.npy f4 2x17 -inf inf nan 0 -0.0 1e30 -1e30 88.8 -100 \
// RUN:   1e-40 -1e-40 0.5 -0.5 20 -20 3.4e38 -3.4e38 1 -1 2 -2 1e-8 -1e-8 10 -10 0.1 7 -7 50 -50 1e10 -1e10 0.25 -0.25
// RUN: tgc-run %s --entry f32_ops --inputs %t.special.npy,%t.special.npy --check reference \
// RUN:   | FileCheck %s --check-prefix=SPECIAL
// SPECIAL: reference check: ok

// The same at each vector width LLVM may be asked to prefer (libmvec's 4-,
// 8- and 16-lane functions where the host has them), and a width that is
// not one.
// RUN: tgc-run %s --entry f32_ops --inputs %t.special.npy,%t.special.npy --check reference \
// RUN:   --vector-width=128 | FileCheck %s --check-prefix=SPECIAL
// RUN: tgc-run %s --entry f32_ops --inputs %t.special.npy,%t.special.npy --check reference \
// RUN:   --vector-width=256 | FileCheck %s --check-prefix=SPECIAL
// RUN: tgc-run %s --entry f32_ops --inputs %t.special.npy,%t.special.npy --check reference \
// RUN:   --vector-width=512 | FileCheck %s --check-prefix=SPECIAL
// RUN: not tgc-run %s --entry f32_ops --inputs %t.special.npy,%t.special.npy \
// RUN:   --vector-width=300 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not tgc-run %s --entry f32_ops --device cuda --compile-only --vector-width=64 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WIDTH64
// WIDTH: tgc-run: error: --vector-width=300: expected 0 (the host's widest), 128, 256 or 512
// WIDTH64: tgc-run: error: --vector-width=64: expected 0 (the host's widest), 128, 256 or 512

// RUN: %python %S/Inputs/npy.py %t.halves.npy f4 2x5 -2.5 -1.5 -0.5 0.5 1.5 2.5 -0.0 -3.5 0.49999997 -7.25
// RUN: tgc-run %s --entry rounding --inputs %t.halves.npy --check reference --print-results | FileCheck %s --check-prefix=ROUND
// ROUND:      result 0 (call 0): {{\[\[}}-2,   -2,   -0,   0,   2],
// ROUND-NEXT: [2,   -0,   -4,   0,   -7]]
// ROUND:      reference check: ok

func.func @f32_ops(%x: tensor<?x17xf32> {tgc.input_range = array<f64: -3.0, 3.0>},
                   %p: tensor<?x17xf32> {tgc.input_range = array<f64: 0.05, 4.0>})
    -> (tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
        tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
        tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
        tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
        tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
        tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
        tensor<?x17xf32>) {
  %0 = tgc.neg %x : tensor<?x17xf32>
  %1 = tgc.abs %x : tensor<?x17xf32>
  %2 = tgc.relu %x : tensor<?x17xf32>
  %3 = tgc.exp %x : tensor<?x17xf32>
  %4 = tgc.exp2 %x : tensor<?x17xf32>
  %5 = tgc.expm1 %x : tensor<?x17xf32>
  %6 = tgc.log %p : tensor<?x17xf32>
  %7 = tgc.log2 %p : tensor<?x17xf32>
  %8 = tgc.log1p %p : tensor<?x17xf32>
  %9 = tgc.sqrt %p : tensor<?x17xf32>
  %10 = tgc.rsqrt %p : tensor<?x17xf32>
  %11 = tgc.sin %x : tensor<?x17xf32>
  %12 = tgc.cos %x : tensor<?x17xf32>
  %13 = tgc.tanh %x : tensor<?x17xf32>
  %14 = tgc.sigmoid %x : tensor<?x17xf32>
  %15 = tgc.erf %x : tensor<?x17xf32>
  %16 = tgc.silu %x : tensor<?x17xf32>
  %17 = tgc.reciprocal %p : tensor<?x17xf32>
  %18 = tgc.floor %x : tensor<?x17xf32>
  %19 = tgc.ceil %x : tensor<?x17xf32>
  %20 = tgc.round %x : tensor<?x17xf32>
  %21 = tgc.gelu %x : tensor<?x17xf32>
  %22 = tgc.gelu %x approximate = tanh : tensor<?x17xf32>
  %23 = tgc.clamp %x min -1.0 max 0.5 : tensor<?x17xf32>
  %24 = tgc.clamp %x max 0.25 : tensor<?x17xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14,
         %15, %16, %17, %18, %19, %20, %21, %22, %23, %24
    : tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
      tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
      tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
      tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
      tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
      tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>, tensor<?x17xf32>,
      tensor<?x17xf32>
}

// Static shapes: f16 and bf16 (computed in f32, rounded once), integers.
func.func @low_precision_and_int_ops(
    %h: tensor<6x9xf16> {tgc.input_range = array<f64: -3.0, 3.0>},
    %g: tensor<6x9xbf16> {tgc.input_range = array<f64: -3.0, 3.0>},
    %hp: tensor<6x9xf16> {tgc.input_range = array<f64: 0.1, 4.0>},
    %i: tensor<6x9xi32> {tgc.input_range = array<i64: -50, 50>},
    %l: tensor<6x9xi64> {tgc.input_range = array<i64: -50, 50>})
    -> (tensor<6x9xf16>, tensor<6x9xf16>, tensor<6x9xf16>, tensor<6x9xf16>,
        tensor<6x9xf16>, tensor<6x9xf16>, tensor<6x9xf16>,
        tensor<6x9xbf16>, tensor<6x9xbf16>, tensor<6x9xbf16>, tensor<6x9xbf16>,
        tensor<6x9xbf16>, tensor<6x9xbf16>,
        tensor<6x9xi32>, tensor<6x9xi32>, tensor<6x9xi32>, tensor<6x9xi64>,
        tensor<6x9xi64>) {
  %0 = tgc.exp %h : tensor<6x9xf16>
  %1 = tgc.log %hp : tensor<6x9xf16>
  %2 = tgc.tanh %h : tensor<6x9xf16>
  %3 = tgc.erf %h : tensor<6x9xf16>
  %4 = tgc.sigmoid %h : tensor<6x9xf16>
  %5 = tgc.gelu %h : tensor<6x9xf16>
  %6 = tgc.rsqrt %hp : tensor<6x9xf16>
  %7 = tgc.exp %g : tensor<6x9xbf16>
  %8 = tgc.tanh %g : tensor<6x9xbf16>
  %9 = tgc.erf %g : tensor<6x9xbf16>
  %10 = tgc.sigmoid %g : tensor<6x9xbf16>
  %11 = tgc.gelu %g approximate = tanh : tensor<6x9xbf16>
  %12 = tgc.silu %g : tensor<6x9xbf16>
  %13 = tgc.abs %i : tensor<6x9xi32>
  %14 = tgc.neg %i : tensor<6x9xi32>
  %15 = tgc.relu %i : tensor<6x9xi32>
  %16 = tgc.clamp %l min -10.0 max 20.0 : tensor<6x9xi64>
  %17 = tgc.abs %l : tensor<6x9xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14,
         %15, %16, %17
    : tensor<6x9xf16>, tensor<6x9xf16>, tensor<6x9xf16>, tensor<6x9xf16>,
      tensor<6x9xf16>, tensor<6x9xf16>, tensor<6x9xf16>,
      tensor<6x9xbf16>, tensor<6x9xbf16>, tensor<6x9xbf16>, tensor<6x9xbf16>,
      tensor<6x9xbf16>, tensor<6x9xbf16>,
      tensor<6x9xi32>, tensor<6x9xi32>, tensor<6x9xi32>, tensor<6x9xi64>,
      tensor<6x9xi64>
}

func.func @rounding(%x: tensor<2x5xf32>)
    -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = tgc.round %x : tensor<2x5xf32>
  %1 = tgc.floor %x : tensor<2x5xf32>
  %2 = tgc.ceil %x : tensor<2x5xf32>
  return %0, %1, %2 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}
