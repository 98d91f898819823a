// RUN: tgc-opt %s --tgc-report-checks -split-input-file | FileCheck %s

// A check of data (its condition reads memory) reports to the runtime when
// it fails and the code goes on; the message gets the assert's location.
// A check of sizes alone stays an assert. The runtime function is a weak
// declaration, called when the process has it: a shared object loads
// without TGC's runtime.

// CHECK-DAG:   llvm.func extern_weak @tgc_report_check_failure(!llvm.ptr)
// CHECK-DAG:   llvm.mlir.global internal constant @__tgc_check_0("tgc.gather: index out of range at {{.*}}report-checks.mlir:[[#@LINE+19]]:3\00")
// CHECK-LABEL: func.func @gather_flag
// CHECK:         %[[FLAG:.*]] = memref.load %arg0[] : memref<i1>
// CHECK:         %[[OK:.*]] = arith.ori %[[FLAG]], %{{.*}} : i1
// CHECK:         %[[BAD:.*]] = arith.xori %[[OK]], %true : i1
// CHECK:         scf.if %[[BAD]] {
// CHECK:           %[[GLOBAL:.*]] = llvm.mlir.addressof @__tgc_check_0 : !llvm.ptr
// CHECK:           %[[MSG:.*]] = llvm.getelementptr %[[GLOBAL]][0, 0]
// CHECK:           %[[FN:.*]] = llvm.mlir.addressof @tgc_report_check_failure : !llvm.ptr
// CHECK:           %[[PRESENT:.*]] = llvm.icmp "ne" %[[FN]], %{{.*}} : !llvm.ptr
// CHECK:           scf.if %[[PRESENT]] {
// CHECK:             llvm.call %[[FN]](%[[MSG]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK:           }
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
