// RUN: tgc-translate --tgc-to-ptx %s | FileCheck %s

// ptxas fuses two integer min/max instructions with a negated operand into
// one VIMNMX3 and drops the negation (PtxasWorkarounds.cpp). A negation that
// feeds an integer min or max is emitted as `not` then `add 1` in inline
// assembly, which ptxas compiles right, and so is one that feeds a signed
// integer comparison; other uses keep `neg`.

// out[0] = max(max(acc, -a), -|b|); out[1] = min(c, -c) (abs's own idiom);
// out[2] = -a (no min/max: stays neg); 64-bit umax(x, -y).

// CHECK-LABEL: .visible .entry negated_minmax(
// CHECK:       neg.s32 %[[NEG:r[0-9]+]], %[[A:r[0-9]+]];
// CHECK:       // begin inline asm
// CHECK-NEXT:  not.b32 %[[T:r[0-9]+]], %[[A]];
// CHECK-NEXT:  add.s32 %[[T]], %[[T]], 1;
// CHECK-NEXT:  // end inline asm
// CHECK-NEXT:  max.s32 %[[M:r[0-9]+]], %{{r[0-9]+}}, %[[T]];
// CHECK:       abs.s32 %[[AB:r[0-9]+]],
// CHECK:       not.b32 %[[U:r[0-9]+]], %[[AB]];
// CHECK-NEXT:  add.s32 %[[U]], %[[U]], 1;
// CHECK:       max.s32 %{{r[0-9]+}}, %[[M]], %[[U]];
// CHECK:       st.global.b32 [%{{rd[0-9]+}}+4], %[[NEG]];
// CHECK:       not.b64 %[[L:rd[0-9]+]], %{{rd[0-9]+}};
// CHECK-NEXT:  add.s64 %[[L]], %[[L]], 1;
// CHECK:       max.u64 %{{rd[0-9]+}}, %{{rd[0-9]+}}, %[[L]];
// CHECK:       ret;

// A negation that a signed comparison reads is hidden too (fuzz seed
// 924138: `-|x| > -1` held for every x); an unsigned one keeps `neg`.
// CHECK-LABEL: .visible .entry negated_compare(
// CHECK:       // begin inline asm
// CHECK-NEXT:  not.b32 %[[C:r[0-9]+]], %{{r[0-9]+}};
// CHECK-NEXT:  add.s32 %[[C]], %[[C]], 1;
// CHECK-NEXT:  // end inline asm
// CHECK:       setp.{{gt|lt}}.s32 %{{p[0-9]+}}, {{.*}}%[[C]]
// CHECK:       neg.s32 %[[UN:r[0-9]+]],
// CHECK:       setp.{{gt|lt}}.u32 %{{p[0-9]+}}, {{.*}}%[[UN]]
// CHECK:       ret;

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @negated_minmax(%out: !llvm.ptr<1>, %acc: i32, %a: i32,
                              %b: i32, %x: i64, %y: i64)
        attributes {nvvm.kernel} {
      %zero = llvm.mlir.constant(0 : i32) : i32
      %zero64 = llvm.mlir.constant(0 : i64) : i64
      %na = llvm.sub %zero, %a : i32
      %m1 = llvm.intr.smax(%acc, %na) : (i32, i32) -> i32
      %ab = "llvm.intr.abs"(%b) <{is_int_min_poison = false}> : (i32) -> i32
      %nb = llvm.sub %zero, %ab : i32
      %m2 = llvm.intr.smax(%m1, %nb) : (i32, i32) -> i32
      llvm.store %m2, %out : i32, !llvm.ptr<1>
      %p1 = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
      llvm.store %na, %p1 : i32, !llvm.ptr<1>
      %ny = llvm.sub %zero64, %y : i64
      %m3 = llvm.intr.umax(%x, %ny) : (i64, i64) -> i64
      %p2 = llvm.getelementptr %out[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
      llvm.store %m3, %p2 : i64, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @negated_compare(%out: !llvm.ptr<1>, %a: i32, %b: i32,
                               %c: i32, %d: i32) attributes {nvvm.kernel} {
      %zero = llvm.mlir.constant(0 : i32) : i32
      %na = llvm.sub %zero, %a : i32
      %gt = llvm.icmp "sgt" %na, %b : i32
      %r = llvm.select %gt, %c, %d : i1, i32
      llvm.store %r, %out : i32, !llvm.ptr<1>
      %nc = llvm.sub %zero, %c : i32
      %ugt = llvm.icmp "ugt" %nc, %b : i32
      %s = llvm.select %ugt, %a, %d : i1, i32
      %p1 = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
      llvm.store %s, %p1 : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
