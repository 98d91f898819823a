"""The native call path: loads the extension of lib/Python/tgc_native.c and
describes to it the specializations it may run (docs/python.md, "The call
path").

A call of a compiled function first goes to the extension (the base class of
CompiledFunction). It serves the call when a specialization listed here
accepts it: positional arguments that are contiguous tensors (or the
constants the specialization was traced with), the module's parameters and
Python values unchanged, the compiled guards passing. It runs the compiled
code on PyTorch's current stream, results allocated by PyTorch, and returns
them. Everything else goes to ``CompiledFunction._call_python``, the Python
path, which compiles on a miss and lists the specializations again.

What a specialization needs to be listed (else only the Python path runs
it): no graph break, no input read as a number, no size relation checked in
Python, no input that stays eager, no random operator (its seed is drawn
per call in Python). Results that are compiled results or
inputs returned as they are, in one value, a tuple or a list, are returned
by the extension; any other structure (Hugging Face's ModelOutput, sizes,
numbers read from results) is built by `_finish` in Python.

The extension is found at ``$TGC_NATIVE_LIBRARY``, in the package's ``_lib``
folder (the bundle), or in the build tree (``lib/_tgc_native.abi3.so``).
``TGC_NATIVE=0`` turns it off (every call takes the Python path).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.machinery
import importlib.util
import os
from typing import Any, Optional, Tuple

import torch

from . import _capi
from ._graph import CODE_DTYPES

_NAME = "_tgc_native.abi3.so"
NATIVE_ABI = 8  # TGC_NATIVE_ABI of tgc_native.c
_module: Any = None
_tried = False


def _path() -> Optional[str]:
    env = os.environ.get("TGC_NATIVE_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, "_lib", _NAME)
    if os.path.exists(bundled):
        return bundled
    capi = _capi.library_path()  # the build tree's lib folder, if any
    beside = os.path.join(os.path.dirname(capi), _NAME)
    return beside if os.path.exists(beside) else None


def load():
    """The extension module, or None (not built, turned off, or it failed
    to load: then the Python path serves every call)."""
    global _module, _tried
    if _tried:
        return _module
    _tried = True
    if os.environ.get("TGC_NATIVE", "1") == "0":
        return None
    try:
        path = _path()
        if path is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader("tgc._tgc_native", path)
        spec = importlib.util.spec_from_file_location("tgc._tgc_native", path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        if getattr(module, "ABI", None) != NATIVE_ABI:
            raise ImportError(f"{path} is version {getattr(module, 'ABI', None)}, the "
                              f"package expects {NATIVE_ABI}: rebuild it")
        from ._state import autocast_enabled

        lib = _capi.lib()
        addr = lambda f: ctypes.cast(f, ctypes.c_void_p).value  # noqa: E731
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda index: torch.cuda.current_stream(index).cuda_stream)
        module.setup(addr(lib.tgc_compiled_check_guards), addr(lib.tgc_compiled_run),
                     addr(lib.tgc_compiled_run_on_stream),
                     addr(lib.tgc_compiled_try_run_on_stream), addr(lib.tgc_last_error),
                     torch.Tensor, torch.empty, torch.empty_like, raw, _capi.TgcError,
                     tuple(CODE_DTYPES.get(i) for i in range(max(CODE_DTYPES) + 1)),
                     torch.is_grad_enabled, autocast_enabled, torch.get_default_dtype,
                     torch.float32, torch.nn.Parameter, torch.cuda.device_count)
    except Exception as e:  # noqa: BLE001 - any failure leaves the Python path
        import warnings
        warnings.warn(f"tgc: the native call path is off ({e}); calls go through Python")
        return None
    _module = module
    module.set_enabled(all(_flags.values()))
    return module


# Global conditions of the native path: the force_eager stance turns it off,
# and so does checking every call against the reference interpreter.
_flags = {"stance": True, "check": True}


def set_flag(name: str, on: bool) -> None:
    _flags[name] = bool(on)
    if _module is not None:
        _module.set_enabled(all(_flags.values()))


# Constants returned as they are by every call (shared: immutable).
_IMMUTABLE = (type(None), bool, int, float, str, torch.Size, torch.dtype, torch.device)


def _outputs(trace) -> Optional[Tuple[Tuple[Tuple[int, int], ...], int]]:
    """(outputs in return order as (0 result | 1 input, index) or (2,
    constant), tree kind 0 one value | 1 tuple | 2 list), or None when
    Python must build them."""
    kinds = []
    for kind, payload in trace.outputs:
        if kind == "result":
            kinds.append((0, payload))
        elif kind == "arg":
            kinds.append((1, payload))
        elif kind == "const" and isinstance(payload, _IMMUTABLE):
            kinds.append((2, payload))  # None for a gradient not computed
        else:
            return None
    tree = trace.output_tree
    if tree[0] == "leaf":
        return (kinds[tree[1]],), 0
    if tree[0] in (tuple, list) and all(t[0] == "leaf" for t in tree[1]):
        return tuple(kinds[t[1]] for t in tree[1]), 1 if tree[0] is tuple else 2
    return None


def _finish(spec, results, tensors):
    from ._compile import _results  # a cycle at import time otherwise
    return _results(spec, tensors, tensors, results)


def _pattern(keys) -> Optional[Tuple[Optional[bool], ...]]:
    """Per positional argument, True for a tensor and None for None, when
    the specialization's key (tgc._compile.flatten) is of such a call with
    no keyword arguments; else None."""
    if not (isinstance(keys, tuple) and len(keys) == 2 and keys[0] == "tuple"):
        return None
    args, kwargs = keys[1]
    if kwargs != ("dict", dict, ()) or args[0] != "tuple":
        return None
    pattern = []
    for k in args[1]:
        if k == ("T",):
            pattern.append(True)
        elif k == ("c", type(None), None):
            pattern.append(None)
        else:
            return None
    return tuple(pattern)


def _pool(outputs, pool_from: Optional[int], num_results: int) -> Optional[list]:
    """The pooled results' slot of an entry (tgc_native_pool.h): results
    returned at positions from `pool_from` on (a training forward's saved
    tensors) share one block per dtype, except those also returned before
    it (an output the caller keeps would keep the whole block)."""
    if pool_from is None or not outputs:
        return None
    late = {i for k, i in outputs[pool_from:] if k == 0}
    early = {i for k, i in outputs[:pool_from] if k == 0}
    pooled = late - early
    if not pooled:
        return None
    flags = tuple(i in pooled for i in range(num_results))
    return [flags, None, _ITEMSIZES]


_ITEMSIZES = tuple(torch.empty((), dtype=CODE_DTYPES[c]).element_size() if c in CODE_DTYPES
                   else 0 for c in range(max(CODE_DTYPES) + 1))


def entry(spec, pool_from: Optional[int] = None) -> Optional[tuple]:
    """The extension's description of `spec` (see tgc_native.c), or None
    when the Python path must run it. With `pool_from`, the results the
    call returns from that position on share allocations (_pool)."""
    positional = _pattern(spec.keys)
    if positional is None:
        return None
    # The extension serves calls under the default float32 default dtype
    # only (it checks it per call): a specialization traced under another
    # one is the Python path's.
    if spec.default_dtype not in (None, torch.float32):
        return None
    from . import _state

    if spec.hooks_version != _state.hooks_version():
        return None  # a module hook changed since its trace
    trace = spec.trace
    if trace.program is not None or trace.eager_inputs or trace.value_specs \
            or trace.size_guards or trace.seed_index is not None \
            or getattr(trace, "grad_mode", None) is not None \
            or getattr(trace, "layout_read", False) \
            or any(o is not None for o in getattr(spec.captured, "origs", ())):
        # (random operators: their seed is drawn per call in Python; a
        # permuted capture is checked against the model's tensor per call,
        # CapturedTensors.current)
        return None
    out = None if trace.unsigned_results else _outputs(trace)
    if out is None:
        # Built in Python from the results (tgc._compile._results): objects
        # such as Hugging Face's ModelOutput, sizes, numbers from results.
        out = ((), functools.partial(_finish, spec))
    dict_guards, guards = [], []
    if spec.tf32:
        guards.append(_state.Tf32Guard(spec.tf32))
    for g in trace.value_guards:
        source = getattr(g, "source", None)
        if source is not None:
            dict_guards.append((source[0], source[1], g.value))
        elif getattr(g, "size_of", None) is not None:
            dict_guards.append((g.size_of, g.value))  # len(dict) == value, in C
        else:
            guards.append(g)
    tensors, links = spec.captured.snapshot()
    cuda = spec.compiled.device == "cuda"
    # The runtime runs on device 0 (docs/gpu-runtime.md); the extension
    # takes calls whose CUDA tensors are there, and allocates there.
    device = torch.device("cuda", 0) if cuda else torch.device("cpu")
    kwargs = tuple({"dtype": CODE_DTYPES[c], "device": device} if c in CODE_DTYPES else None
                   for c in range(max(CODE_DTYPES) + 1))
    return (spec.compiled.handle, positional, tuple(tensors), tuple(links), tuple(dict_guards), tuple(guards), out[0], out[1],
            cuda, spec, spec.compiled.num_results, kwargs,
            _pool(out[0], pool_from, spec.compiled.num_results))


@contextlib.contextmanager
def phase_profile():
    """Where the host time of natively served calls goes, phase by phase
    (tgc_native.c, "Phase profile"): yields a dict that is filled on exit
    with microseconds per call for each phase and "calls", the number of
    calls measured. Empty when the extension is not loaded. For
    benchmarks (`utils/bench/python_bench.py --call-path --phases`): one
    thread at a time, and the clock reads cost about 20 ns each."""
    out: dict = {}
    module = load()
    if module is None:
        yield out
        return
    module.take_phases()
    module.set_profiling(True)
    try:
        yield out
    finally:
        module.set_profiling(False)
        raw = module.take_phases()
        calls = raw.pop("calls")
        out["calls"] = calls
        for name, ns in raw.items():
            out[name] = ns / 1e3 / calls if calls else 0.0
