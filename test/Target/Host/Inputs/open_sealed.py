"""Opens a shared object with the runtime's checking loader,
tgc_shared_object_open (from libtgc_capi.so, which exports the runtime's C
API), and prints whether the guard symbol of @scale_exp was found or why
the open failed. Standard library only.

    open_sealed.py LIBTGC_CAPI SHARED_OBJECT
"""

import ctypes
import sys


def main():
    capi = ctypes.CDLL(sys.argv[1])
    capi.tgc_shared_object_open.restype = ctypes.c_void_p
    capi.tgc_shared_object_open.argtypes = [ctypes.c_char_p]
    capi.tgc_shared_object_symbol.restype = ctypes.c_void_p
    capi.tgc_shared_object_symbol.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    capi.tgc_shared_object_close.argtypes = [ctypes.c_void_p]
    capi.tgc_shared_object_last_error.restype = ctypes.c_char_p
    handle = capi.tgc_shared_object_open(sys.argv[2].encode())
    if not handle:
        print("open failed:", capi.tgc_shared_object_last_error().decode())
        return
    guard = capi.tgc_shared_object_symbol(handle, b"tgc_guard_scale_exp")
    print("open: ok, guard found:", bool(guard))
    capi.tgc_shared_object_close(handle)


if __name__ == "__main__":
    main()
