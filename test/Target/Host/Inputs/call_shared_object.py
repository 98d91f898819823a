"""Loads a shared object made by tgc-translate --tgc-to-shared-object for
@scale_exp (test/Target/Host/shared-object.mlir) and calls it the way a C
program would: the guard function first, then the C-interface entry point.
Checks the result against Python's math.exp and that the guard rejects a
wrong size. Standard library only."""

import ctypes
import math
import sys


class ArgDesc(ctypes.Structure):
    # tgc_arg_desc of include/tgc/Runtime/tgc_runtime.h
    _fields_ = [("data", ctypes.c_void_p),
                ("sizes", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("rank", ctypes.c_int64),
                ("scalar", ctypes.c_int64),
                ("dtype", ctypes.c_int32),
                ("device_type", ctypes.c_int32),
                ("device_index", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]


def memref_type(rank):
    class MemRef(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p),
                    ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * rank),
                    ("strides", ctypes.c_int64 * rank)]
    return MemRef


def main():
    lib = ctypes.CDLL(sys.argv[1])
    f32_dtype = 0  # TGC_DTYPE_F32
    cpu = 0  # TGC_DEVICE_CPU
    rows, cols = 3, 256
    x = (ctypes.c_float * (rows * cols))(
        *[((i % 17) - 8) / 8.0 for i in range(rows * cols)])
    s = (ctypes.c_float * cols)(*[0.5 + (j % 5) / 10.0 for j in range(cols)])

    def descs(x_rows):
        sizes_x = (ctypes.c_int64 * 2)(x_rows, cols)
        strides_x = (ctypes.c_int64 * 2)(cols, 1)
        sizes_s = (ctypes.c_int64 * 1)(cols)
        strides_s = (ctypes.c_int64 * 1)(1)
        keep = [sizes_x, strides_x, sizes_s, strides_s]
        arr = (ArgDesc * 2)(
            ArgDesc(ctypes.cast(x, ctypes.c_void_p), sizes_x, strides_x, 2, 0,
                    f32_dtype, cpu, 0, 0),
            ArgDesc(ctypes.cast(s, ctypes.c_void_p), sizes_s, strides_s, 1, 0,
                    f32_dtype, cpu, 0, 0))
        return arr, keep

    guard = lib.tgc_guard_scale_exp
    guard.restype = ctypes.c_int32
    arr, keep = descs(rows)
    failed = guard(arr, 2)
    print("guard on %dx%d: %d" % (rows, cols, failed))
    if failed != -1:
        return 1
    # A row count of 1 is specialized away (0/1 specialization): the guard
    # names the failing check.
    arr1, keep1 = descs(1)
    print("guard on 1x%d: %s" % (cols, "rejected" if guard(arr1, 2) >= 0
                                 else "accepted"))

    M2, M1 = memref_type(2), memref_type(1)
    mx = M2(ctypes.cast(x, ctypes.c_void_p), ctypes.cast(x, ctypes.c_void_p),
            0, (ctypes.c_int64 * 2)(rows, cols), (ctypes.c_int64 * 2)(cols, 1))
    ms = M1(ctypes.cast(s, ctypes.c_void_p), ctypes.cast(s, ctypes.c_void_p),
            0, (ctypes.c_int64 * 1)(cols), (ctypes.c_int64 * 1)(1))
    out = M2()
    lib._mlir_ciface_scale_exp(ctypes.byref(out), ctypes.byref(mx),
                               ctypes.byref(ms))
    print("result sizes: %dx%d" % (out.sizes[0], out.sizes[1]))
    data = ctypes.cast(out.aligned, ctypes.POINTER(ctypes.c_float))
    worst = 0.0
    for i in range(rows):
        for j in range(cols):
            want = math.exp(x[i * cols + j] * s[j])
            got = data[i * out.strides[0] + j * out.strides[1]]
            worst = max(worst, abs(got - want) / max(abs(want), 1e-30))
    print("max relative error below 1e-6: %s" % (worst < 1e-6))
    ctypes.CDLL(None).free(ctypes.c_void_p(out.allocated))
    return 0 if worst < 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
