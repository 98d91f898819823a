"""ctypes bindings of libtgc_capi (include/tgc-c/tgc_compiler.h).

The library is found, in order, at ``$TGC_CAPI_LIBRARY``, in the package's
``_lib`` folder (the relocatable bundle of utils/build-python-bundle.sh),
or in the build tree of the checkout the package lives in
(``$TGC_BUILD_DIR/lib``, ``build/lib``, ``build-release/lib``).
"""

from __future__ import annotations

import ctypes
import glob
import os
import threading
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import torch

from ._graph import CODE_DTYPES, DTYPE_CODES

CAPI_VERSION = 6


class TgcError(RuntimeError):
    """A compile or run error reported by the TGC library."""


class ArgDesc(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("sizes", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("rank", ctypes.c_int64),
        ("scalar", ctypes.c_int64),
        ("dtype", ctypes.c_int32),
        ("device_type", ctypes.c_int32),
        ("device_index", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
    ]


assert ctypes.sizeof(ArgDesc) == 56

ALLOC_FN = ctypes.CFUNCTYPE(
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int64,
    ctypes.POINTER(ctypes.c_int64),
)

_here = os.path.dirname(os.path.abspath(__file__))
_lib: Optional[ctypes.CDLL] = None
_lock = threading.Lock()


def library_path() -> str:
    env = os.environ.get("TGC_CAPI_LIBRARY")
    if env:
        return env
    bundled = os.path.join(_here, "_lib", "libtgc_capi.so")
    if os.path.exists(bundled):
        return bundled
    root = os.path.dirname(os.path.dirname(_here))
    builds = ["build", "build-release"]
    if os.environ.get("TGC_BUILD_DIR"):
        builds.insert(0, os.environ["TGC_BUILD_DIR"])
    for build in builds:
        p = os.path.join(root, build, "lib", "libtgc_capi.so")
        if os.path.exists(p):
            return p
    raise TgcError(
        "libtgc_capi.so not found: build TGC (utils/setup.sh), set "
        "TGC_CAPI_LIBRARY, or use the bundle of utils/build-python-bundle.sh"
    )


def bundled_shared_libs() -> List[str]:
    """Runtime libraries the CPU JIT needs, when the package carries them."""
    libdir = os.path.join(_here, "_lib")
    libs = []
    for pattern in ("libomp.so*", "libmlir_c_runner_utils.so*"):
        found = sorted(glob.glob(os.path.join(libdir, pattern)))
        if found:
            libs.append(found[0])
    return libs


def lib() -> ctypes.CDLL:
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        l = ctypes.CDLL(library_path())
        c = ctypes
        P = c.c_void_p
        sig = {
            "tgc_capi_version": (c.c_int32, []),
            "tgc_last_error": (c.c_char_p, []),
            "tgc_cuda_available": (c.c_int32, [c.c_char_p, c.c_size_t]),
            "tgc_compile": (P, [c.c_char_p, c.c_char_p, c.c_char_p]),
            "tgc_compiled_destroy": (None, [P]),
            "tgc_compiled_cache": (c.c_char_p, [P, c.c_char_p]),
            "tgc_compiled_device": (c.c_int32, [P]),
            "tgc_compiled_num_args": (c.c_int32, [P]),
            "tgc_compiled_num_results": (c.c_int32, [P]),
            "tgc_compiled_compile_ms": (c.c_double, [P]),
            "tgc_compiled_kernels": (c.c_int64, [P]),
            "tgc_compiled_num_guards": (c.c_int32, [P]),
            "tgc_compiled_guard_text": (c.c_char_p, [P, c.c_int32]),
            "tgc_compiled_guard_reason": (c.c_char_p, [P, c.c_int32]),
            "tgc_compiled_check_guards": (c.c_int32, [P, c.POINTER(ArgDesc), c.c_int32]),
            "tgc_compiled_describe_failure": (
                c.c_int64,
                [P, c.c_int32, c.POINTER(ArgDesc), c.c_int32, c.c_char_p, c.c_size_t],
            ),
            "tgc_compiled_code": (c.c_char_p, [P, c.c_char_p]),
            "tgc_compiled_arena_bytes": (c.c_int64, [P, c.POINTER(ArgDesc), c.c_int32]),
            "tgc_compiled_phases": (c.c_char_p, [P]),
            "tgc_compiled_run": (c.c_int32, [P, c.POINTER(ArgDesc), c.c_int32, ALLOC_FN, P]),
            "tgc_compiled_run_on_stream": (
                c.c_int32, [P, c.POINTER(ArgDesc), c.c_int32, ALLOC_FN, P, P]),
            "tgc_compiled_try_run_on_stream": (
                c.c_int32, [P, c.POINTER(ArgDesc), c.c_int32, ALLOC_FN, P, P]),
            "tgc_compiled_profile": (
                c.c_char_p, [P, c.POINTER(ArgDesc), c.c_int32, c.c_int32]),
            "tgc_set_logs": (c.c_int32, [c.c_char_p]),
            "tgc_set_gemm_tuning_cache": (None, [c.c_char_p]),
            "tgc_compiled_gpu_stats": (None, [P, c.POINTER(c.c_int64)]),
            "tgc_reference_run": (
                c.c_int32,
                [c.c_char_p, c.c_char_p, c.POINTER(ArgDesc), c.c_int32, ALLOC_FN, P],
            ),
        }
        for name, (res, args) in sig.items():
            f = getattr(l, name)
            f.restype = res
            f.argtypes = args
        if l.tgc_capi_version() != CAPI_VERSION:
            raise TgcError(
                f"libtgc_capi has C API version {l.tgc_capi_version()}, this "
                f"package expects {CAPI_VERSION}: rebuild or reinstall"
            )
        _lib = l
        return l


def last_error() -> str:
    return lib().tgc_last_error().decode("utf-8", "replace")


def cuda_available() -> tuple:
    buf = ctypes.create_string_buffer(512)
    ok = lib().tgc_cuda_available(buf, 512)
    return bool(ok), buf.value.decode()


class Args:
    """Descriptors of a call's tensors, kept alive with their size arrays
    (a tensor made for the call alone, such as a random seed, lives as long
    as its descriptor)."""

    __slots__ = ("descs", "keep", "count", "tensors")

    def __init__(self, tensors: Sequence[torch.Tensor]):
        n = len(tensors)
        self.descs = (ArgDesc * max(n, 1))()
        self.tensors = tensors
        self.keep = []
        self.count = n
        for i, t in enumerate(tensors):
            d = self.descs[i]
            rank = t.dim()
            sizes = (ctypes.c_int64 * max(rank, 1))(*t.shape)
            strides = (ctypes.c_int64 * max(rank, 1))(*t.stride())
            self.keep.append((sizes, strides))
            d.data = t.data_ptr() or None
            d.sizes = sizes
            d.strides = strides
            d.rank = rank
            d.dtype = DTYPE_CODES.get(t.dtype, 99)
            if t.device.type == "cuda":
                d.device_type = 1
                d.device_index = t.device.index or 0
            else:
                d.device_type = 0 if t.device.type == "cpu" else 99


def current_stream(device: torch.device) -> int:
    """The CUstream of PyTorch's current stream on `device` (0: the legacy
    default stream)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    index = device.index if device.index is not None else torch.cuda.current_device()
    if raw is not None:
        return raw(index)
    return torch.cuda.current_stream(index).cuda_stream


@dataclass
class StepInfo:
    """One launch-plan step (tgc/Runtime/PlanSteps.h): a kernel launch, a
    cuBLASLt GEMM, a cuDNN convolution, a copy, a memset or a device-side
    check."""

    kind: str
    name: str
    strategy: str
    launch: str  # "grid 48x1x1 block 256x1x1", "m 16 n 192 k 64 batch 1 f32"
    bytes: Optional[int]  # read and written, each buffer once
    flops: int  # GEMMs
    ms: Optional[float] = None  # alone, when profiled

    @classmethod
    def parse(cls, f: Sequence[str]) -> "StepInfo":
        b = int(f[4])
        return cls(f[0], f[1], f[2], f[3], b if b >= 0 else None, int(f[5]))

    @property
    def gbps(self) -> Optional[float]:
        """Bytes / time, when timed (GB/s, 1e9 bytes)."""
        if self.ms is None or self.ms <= 0 or self.bytes is None:
            return None
        return self.bytes / (self.ms * 1e6)

    @property
    def tflops(self) -> Optional[float]:
        if self.ms is None or self.ms <= 0 or not self.flops:
            return None
        return self.flops / (self.ms * 1e9)


@dataclass
class CallProfile:
    """What tgc_compiled_profile measured for one compiled function."""

    repeat: int
    steps: List[StepInfo] = field(default_factory=list)
    call_ms: Optional[float] = None
    device: str = ""
    peak_gbps: Optional[float] = None  # the memory's theoretical bandwidth


class Compiled:
    """One compiled specialization (owns the library handle)."""

    last_profile: Optional[CallProfile] = None

    def __init__(self, text: str, entry: str, options: str):
        l = lib()
        h = l.tgc_compile(text.encode(), entry.encode(), options.encode())
        if not h:
            raise TgcError(last_error())
        self.handle = h
        self.device = "cuda" if l.tgc_compiled_device(h) == 1 else "cpu"
        self.num_args = l.tgc_compiled_num_args(h)
        self.num_results = l.tgc_compiled_num_results(h)
        self.compile_ms = l.tgc_compiled_compile_ms(h)
        self.kernels = l.tgc_compiled_kernels(h)
        # The compile cache: "off", "hit", "miss", "miss, not stored".
        self.cache_status = l.tgc_compiled_cache(h, b"status").decode()
        self.cache_key = l.tgc_compiled_cache(h, b"key").decode()
        self.cache_path = l.tgc_compiled_cache(h, b"path").decode()
        self.cache_warning = l.tgc_compiled_cache(h, b"warning").decode()
        self.guards = []
        for i in range(l.tgc_compiled_num_guards(h)):
            text_i = l.tgc_compiled_guard_text(h, i).decode()
            reason = l.tgc_compiled_guard_reason(h, i).decode()
            self.guards.append((text_i, reason))

    def __del__(self):
        h = getattr(self, "handle", None)
        if h and _lib is not None:
            _lib.tgc_compiled_destroy(h)
            self.handle = None

    def check(self, args: Args) -> int:
        return _lib.tgc_compiled_check_guards(self.handle, args.descs, args.count)

    def describe(self, guard: int, args: Args) -> str:
        n = _lib.tgc_compiled_describe_failure(self.handle, guard, args.descs, args.count, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        _lib.tgc_compiled_describe_failure(self.handle, guard, args.descs, args.count, buf, n + 1)
        return buf.value.decode("utf-8", "replace")

    def arena_bytes(self, args: Optional[Args] = None) -> Optional[int]:
        """Bytes of the arena of intermediate buffers: for these arguments'
        sizes (CPU), or of the last call (GPU); None when unknown."""
        if args is None:
            n = _lib.tgc_compiled_arena_bytes(self.handle, None, 0)
        else:
            n = _lib.tgc_compiled_arena_bytes(self.handle, args.descs, args.count)
        return n if n >= 0 else None

    def phases(self) -> List[tuple]:
        """(phase, ms) of the compile, in order (tgc_compiled_phases)."""
        text = _lib.tgc_compiled_phases(self.handle).decode()
        out = []
        for item in text.split(";"):
            name, _, ms = item.partition("=")
            if name and ms:
                out.append((name, float(ms)))
        return out

    def gpu_stats(self) -> dict:
        """CUDA runs so far (tgc_compiled_gpu_stats)."""
        out = (ctypes.c_int64 * 12)()
        _lib.tgc_compiled_gpu_stats(self.handle, out)
        names = ("launches", "gemms", "graph_captures", "graph_replays", "patched_nodes",
                 "graph_resizes", "gemm_tunings", "gemm_tunings_from_disk", "convs",
                 "conv_tunings", "conv_tunings_from_disk", "check_waits")
        return dict(zip(names, list(out)))

    def code(self, what: str) -> str:
        return _lib.tgc_compiled_code(self.handle, what.encode()).decode()

    def steps(self) -> List["StepInfo"]:
        """Each launch-plan step for the example sizes (CUDA; [] on the
        CPU): kernel, strategy, grid, bytes (tgc_compiled_code "steps")."""
        return [StepInfo.parse(line.split("\t")) for line in self.code("steps").splitlines()
                if line.count("\t") >= 5]

    def profile(self, args: Args, repeat: int) -> "CallProfile":
        """Times a call on `args` (tgc_compiled_profile): each step alone
        and the whole call, `repeat` runs each. The runs write scratch
        results and repeat in-place updates: pass copies."""
        text = _lib.tgc_compiled_profile(self.handle, args.descs, args.count, int(repeat))
        if text is None:
            raise TgcError(last_error())
        out = CallProfile(repeat=int(repeat))
        for line in text.decode("utf-8", "replace").splitlines():
            f = line.split("\t")
            if f[0] == "step" and len(f) >= 8:
                step = StepInfo.parse(f[1:7])
                step.ms = float(f[7]) if float(f[7]) >= 0 else None
                out.steps.append(step)
            elif f[0] == "call" and len(f) >= 2:
                out.call_ms = float(f[1])
            elif f[0] == "device" and len(f) >= 3:
                out.device, out.peak_gbps = f[1], float(f[2]) or None
        self.last_profile = out
        return out

    def run(self, args: Args, device: torch.device) -> List[torch.Tensor]:
        results: List[Optional[torch.Tensor]] = [None] * self.num_results
        alloc_error: List[BaseException] = []  # this call's (threads share self)

        def alloc(user, index, dtype, rank, sizes):
            try:
                shape = [sizes[i] for i in range(rank)]
                t = torch.empty(shape, dtype=CODE_DTYPES[dtype], device=device)
                results[index] = t
                ptr = t.data_ptr()
                if ptr == 0:  # zero elements: any non-null pointer
                    return ctypes.addressof(args.descs)
                return ptr
            except BaseException as e:  # reported after the call
                alloc_error.append(e)
                return None

        cb = ALLOC_FN(alloc)
        if self.device == "cuda":
            # On PyTorch's current stream, into PyTorch's memory: no copy,
            # no wait (tgc_compiled_run_on_stream).
            rc = _lib.tgc_compiled_run_on_stream(
                self.handle, args.descs, args.count, cb, None,
                current_stream(device) or None)
        else:
            rc = _lib.tgc_compiled_run(self.handle, args.descs, args.count, cb, None)
        if alloc_error:
            raise alloc_error[0]
        if rc != 0:
            raise TgcError(last_error())
        return results  # type: ignore[return-value]


def reference_run(text: str, entry: str, tensors: Sequence[torch.Tensor]) -> List[torch.Tensor]:
    """Runs `entry` of a tgc module on the reference interpreter (the oracle
    of tgc-run --check reference): host tensors in, host tensors out; out
    arguments are written in place. Raises TgcError on what the interpreter
    rejects."""
    dense = [t.contiguous() for t in tensors]
    if any(t.device.type != "cpu" for t in dense):
        raise TgcError("reference_run: the reference interpreter takes host tensors")
    args = Args(dense)
    results: List[Optional[torch.Tensor]] = []

    def alloc(user, index, dtype, rank, sizes):
        t = torch.empty([sizes[i] for i in range(rank)], dtype=CODE_DTYPES[dtype])
        while len(results) <= index:
            results.append(None)
        results[index] = t
        return t.data_ptr() or ctypes.addressof(args.descs)

    cb = ALLOC_FN(alloc)
    if lib().tgc_reference_run(text.encode(), entry.encode(), args.descs, args.count, cb, None) != 0:
        raise TgcError(last_error())
    for original, copy in zip(tensors, dense):
        if copy is not original:  # an out argument written in the copy
            original.copy_(copy)
    return results  # type: ignore[return-value]
