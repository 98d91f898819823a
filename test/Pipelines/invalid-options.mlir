// A pipeline option with a fixed set of values is checked when the
// pipeline is parsed: one line naming the option, the value and the
// accepted values, a non-zero exit, no IR printed (issue 23; the policy
// was checked by tgc-symbolize-shapes when it ran, which printed the whole
// function in generic form). The pass's own option is checked when the
// pipeline text is parsed too.
//
// RUN: not tgc-opt %s --tgc-cpu-pipeline=default-policy=dynamc 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tgc-opt %s --tgc-cpu-pipeline=default-policy=dynamc 2>&1 | count 1
// CPU: tgc-opt: for the --default-policy option: 'dynamc' is not static, dynamic or auto
// CPU-NOT: func.func
//
// RUN: not tgc-opt %s --tgc-gpu-pipeline="fuse=false default-policy=Static" 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: tgc-opt: for the --default-policy option: 'Static' is not static, dynamic or auto
//
// RUN: not tgc-opt %s --tgc-frontend-pipeline=device=gpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not tgc-opt %s --tgc-frontend-pipeline=device=cuda:x 2>&1 | FileCheck %s --check-prefix=DEVICE-INDEX
// DEVICE: tgc-opt: for the --device option: 'gpu' is not cpu, cuda or cuda:N
// DEVICE-INDEX: tgc-opt: for the --device option: 'cuda:x' is not cpu, cuda or cuda:N
//
// RUN: not tgc-opt %s --tgc-symbolize-shapes=default-policy=dynamc 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not tgc-opt %s --tgc-symbolize-shapes=default-policy=dynamc 2>&1 | count 1
// PASS: error: tgc-symbolize-shapes: default-policy 'dynamc' is not static, dynamic or auto
//
// The accepted values pass, and the help shows each option's values and
// default.
// RUN: tgc-opt %s --tgc-frontend-pipeline="default-policy=static example-shapes=0=4x7 device=cuda:1" | FileCheck %s --check-prefix=OK
// OK: (policy static)
// OK: tgc_guard.device arg 0 is "cuda:1"
// RUN: tgc-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --tgc-cpu-pipeline
// HELP: --default-policy=<static|dynamic|auto> {{.*}}(default: dynamic)
// HELP: --openmp {{.*}}(default: true)
// HELP: --tgc-frontend-pipeline
// HELP: --device=<cpu|cuda|cuda:N> {{.*}}(default: cpu)
// HELP: --tgc-gpu-pipeline
// HELP: --block-size=<long> {{.*}}(default: 256)

func.func @f(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %r = tgc.neg %x : tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}
