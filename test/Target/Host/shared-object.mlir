// RUN: tgc-opt %s --tgc-cpu-pipeline | tgc-translate --tgc-to-shared-object -o %t.so
// RUN: %python %S/Inputs/call_shared_object.py %t.so | FileCheck %s

// A shared object is self-contained: loaded into a process that has neither
// libomp nor the JIT, its guard accepts a 3x256 input, rejects 1x256 (sizes
// 0 and 1 are specialized away), and its C-interface entry computes
// exp(x * s) (checked elementwise in the script).

// The file carries a seal (size and checksum after the ELF contents) that
// the runtime's loader checks: a corrupted byte, a truncated file and a
// file without the seal are rejected; plain dlopen (above) ignores it.
// RUN: %python %S/Inputs/open_sealed.py %tgc_obj_root/lib/libtgc_capi.so %t.so | FileCheck %s --check-prefix=SEALED
// SEALED: open: ok, guard found: True
// RUN: %python -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[len(d) // 2] ^= 1; open(sys.argv[2], 'wb').write(d)" %t.so %t.corrupt.so
// RUN: %python %S/Inputs/open_sealed.py %tgc_obj_root/lib/libtgc_capi.so %t.corrupt.so | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: open failed: '{{.*}}corrupt.so': checksum mismatch (stored 0x{{[0-9a-f]+}}, computed 0x{{[0-9a-f]+}}): the file is corrupted
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d[:100] + d[-32:])" %t.so %t.short.so
// RUN: %python %S/Inputs/open_sealed.py %tgc_obj_root/lib/libtgc_capi.so %t.short.so | FileCheck %s --check-prefix=SHORT
// SHORT: open failed: '{{.*}}short.so': the seal records an ELF part of {{[0-9]+}} bytes, the file has 100 (truncated or extended)
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d[:-32])" %t.so %t.unsealed.so
// RUN: %python %S/Inputs/open_sealed.py %tgc_obj_root/lib/libtgc_capi.so %t.unsealed.so | FileCheck %s --check-prefix=UNSEALED
// UNSEALED: open failed: '{{.*}}unsealed.so': no TGC seal at the end of the file

// CHECK: guard on 3x256: -1
// CHECK: guard on 1x256: rejected
// CHECK: result sizes: 3x256
// CHECK: max relative error below 1e-6: True
func.func @scale_exp(%x: tensor<?x256xf32>, %s: tensor<256xf32>) -> tensor<?x256xf32> {
  %m = tgc.mul %x, %s : tensor<?x256xf32>, tensor<256xf32> -> tensor<?x256xf32>
  %e = tgc.exp %m : tensor<?x256xf32>
  return %e : tensor<?x256xf32>
}
