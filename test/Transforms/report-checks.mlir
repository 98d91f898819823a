// RUN: tgc-opt %s --tgc-report-checks -split-input-file | FileCheck %s

// A check of data (its condition reads memory) reports to the runtime when
// it fails and the code goes on; the message gets the assert's location.
// A check of sizes alone stays an assert.

// CHECK:       llvm.mlir.global internal constant @__tgc_check_0("tgc.gather: index out of range at {{.*}}report-checks.mlir:[[#@LINE+15]]:3\00")
// CHECK:       func.func private @tgc_report_check_failure(!llvm.ptr)
// CHECK-LABEL: func.func @gather_flag
// CHECK:         %[[FLAG:.*]] = memref.load %arg0[] : memref<i1>
// CHECK:         %[[OK:.*]] = arith.ori %[[FLAG]], %{{.*}} : i1
// CHECK:         %[[BAD:.*]] = arith.xori %[[OK]], %true : i1
// CHECK:         scf.if %[[BAD]] {
// CHECK:           %[[MSG:.*]] = llvm.mlir.addressof @__tgc_check_0 : !llvm.ptr
// CHECK:           func.call @tgc_report_check_failure(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK:         }
// CHECK:         cf.assert %{{.*}}, "sizes differ"
func.func @gather_flag(%flag: memref<i1>, %n: index, %m: index) {
  %empty = arith.cmpi eq, %n, %m : index
  %f = memref.load %flag[] : memref<i1>
  %ok = arith.ori %f, %empty : i1
  cf.assert %ok, "tgc.gather: index out of range"
  cf.assert %empty, "sizes differ"
  return
}

// -----

// Nothing to report: no declaration is added.
// CHECK-LABEL: func.func @sizes_only
// CHECK-NOT:   tgc_report_check_failure
func.func @sizes_only(%n: index) {
  %c0 = arith.constant 0 : index
  %ok = arith.cmpi sgt, %n, %c0 : index
  cf.assert %ok, "empty"
  return
}
