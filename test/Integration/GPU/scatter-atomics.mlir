// tgc.scatter_add compiled for the GPU without one (compile only, with
// ptxas): every numeric type's read-modify-writes are atomic adds, so the
// index's positions are threads (loop kernels, not one-thread serial
// ones). PTX has native f16 and bf16 atomic adds on sm_90; i8 becomes
// LLVM's compare-and-swap loop on the enclosing 32-bit word.

// RUN: tgc-run %s --device cuda --compile-only --calls 1=50,2=50x64,4=50x64,6=50 \
// RUN:   --emit-plan - | FileCheck %s
// CHECK-COUNT-3: kernel scatter_loop_
// CHECK-NOT: kernel scatter_serial_
// RUN: tgc-run %s --device cuda --compile-only --ptx-only --calls 1=50,2=50x64,4=50x64,6=50 \
// RUN:   --emit-artifact %t.tgca
// RUN: %python -c "import sys; print(open(sys.argv[1], 'rb').read().decode('latin-1'))" %t.tgca \
// RUN:   | FileCheck %s --check-prefix=PTX
// PTX-DAG: atom.global.add.noftz.bf16
// PTX-DAG: atom.global.add.noftz.f16
// PTX-DAG: atom.{{.*}}global.cas.b32

func.func @scatter(%b: tensor<100x64xbf16>,
                   %ids: tensor<?xi64> {tgc.input_range = array<i64: 0, 100>},
                   %g: tensor<?x64xbf16>, %h: tensor<100x64xf16>, %gh: tensor<?x64xf16>,
                   %c: tensor<100xi8>, %gc: tensor<?xi8>)
    -> (tensor<100x64xbf16>, tensor<100x64xf16>, tensor<100xi8>) {
  %s = tgc.scatter_add %b, %ids, %g dim = 0 : tensor<100x64xbf16>, tensor<?xi64>, tensor<?x64xbf16> -> tensor<100x64xbf16>
  %t = tgc.scatter_add %h, %ids, %gh dim = 0 : tensor<100x64xf16>, tensor<?xi64>, tensor<?x64xf16> -> tensor<100x64xf16>
  %u = tgc.scatter_add %c, %ids, %gc dim = 0 : tensor<100xi8>, tensor<?xi64>, tensor<?xi8> -> tensor<100xi8>
  return %s, %t, %u : tensor<100x64xbf16>, tensor<100x64xf16>, tensor<100xi8>
}
