// RUN: tgc-opt %s --tgc-cpu-pipeline | tgc-translate --tgc-to-object -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=NM
// RUN: tgc-opt %s --tgc-cpu-pipeline | tgc-translate --tgc-to-host-llvmir --tgc-host-cpu=x86-64-v3 | FileCheck %s --check-prefix=IR
// RUN: tgc-opt %s --tgc-cpu-pipeline | tgc-translate --tgc-to-host-llvmir --tgc-host-cpu=x86-64-v3 | FileCheck %s --check-prefix=GLUE

// The CPU pipeline's output becomes a native object holding the function,
// its C-interface wrapper and its guard function; the OpenMP runtime and
// libm stay undefined (a shared object links them).

// NM-DAG: T _mlir_ciface_scale_exp
// NM-DAG: T scale_exp
// NM-DAG: T tgc_guard_scale_exp
// NM-DAG: U __kmpc_fork_call
// NM-DAG: U expf

// The IR is optimized for the CPU asked for: the elementwise loop is
// vectorized with AVX2's 8-wide vectors.
// IR: target triple = "x86_64
// IR: define {{.*}} @scale_exp(
// IR: <8 x float>
// The entry (and its wrapper and guard) is the glue between the outlined
// kernels: generic scheduling tuning; the kernel keeps the host's. The
// entry is inlined into its C interface (whose call would pass every
// descriptor field) and stays exported.
// GLUE: define {{.*}} @scale_exp({{.*}}) {{.*}}#[[ENTRY:[0-9]+]] {
// GLUE: define void @_mlir_ciface_scale_exp(
// GLUE-NOT: call {{.*}}@scale_exp(
// GLUE: call fastcc void @scale_exp__kernel0(
// GLUE: define internal {{.*}} @scale_exp__kernel0({{.*}}) {{.*}}#[[KERNEL:[0-9]+]] {
// GLUE: attributes #[[ENTRY]] = { {{.*}}"tune-cpu"="generic"
// GLUE: attributes #[[KERNEL]] = { {{[^"]*}} }
func.func @scale_exp(%x: tensor<?x256xf32>, %s: tensor<256xf32>) -> tensor<?x256xf32> {
  %m = tgc.mul %x, %s : tensor<?x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %e = tgc.exp %m : tensor<?x256xf32>
  return %e : tensor<?x256xf32>
}
