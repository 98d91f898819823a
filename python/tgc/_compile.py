"""``tgc.compile``: a guard-dispatched cache of compiled specializations.

Each call runs the compiled guards of the cached specializations (most
recently used first); the first that accepts the arguments runs. A miss
traces the function again on the new arguments and compiles a new
specialization, with a logged reason naming the guard that failed and, for
sizes that Python code read, the file and line of the read. The recompile
limit and the stances follow the runtime's dispatch cache (docs/runtime.md).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
import warnings
import weakref
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import torch

from . import (_autograd, _cache, _capi, _check, _names, _native_path, _profile, _state,
               _tracing, _watch)
from ._breaks import BreakMiss, BreakSizes, run_island
from ._explain import Explanation
from ._specialized import Specialized, eager_reason
from ._graph import Unsupported
from ._trace import TraceResult
from ._trace_loop import trace
from ._trees import flatten, rebuild, unflatten

DEFAULT_RECOMPILE_LIMIT = 8

# torch.compile's modes and whether each runs through CUDA graphs on the GPU.
# TGC times cuBLASLt's candidate algorithms for every GEMM shape in every mode:
# "max-autotune" is "reduce-overhead" and "max-autotune-no-cudagraphs"
# "default" by another name (docs/python.md).
_MODES = {"default": False, "reduce-overhead": True, "max-autotune": True,
          "max-autotune-no-cudagraphs": False}

_STANCES = ("default", "fail_on_recompile", "eager_on_recompile", "force_eager")
_stance = "default"
# TGC_LOGS categories, each printing what its name says (docs/python.md).
_LOG_NAMES = ("recompiles", "guards", "graph", "output_code", "graph_breaks",
              "guard_code", "compile_time", "cache")
_logs: Set[str] = set()
# Categories asked for with a "+" (more detail: "+guards" lists the guards
# on parameters and buffers one by one).
_verbose: Set[str] = set()


class RecompileError(RuntimeError):
    """A recompile was needed under the fail_on_recompile stance, or the
    recompile limit was reached with fallback disabled."""


def set_stance(stance: str) -> None:
    """What a guard miss after the first compile does: "default" (compile),
    "fail_on_recompile" (raise RecompileError), "eager_on_recompile" (run
    eagerly), "force_eager" (never compile)."""
    global _stance
    if stance not in _STANCES:
        raise ValueError(f"unknown stance {stance!r}; expected one of {_STANCES}")
    _stance = stance
    _native_path.set_flag("stance", stance != "force_eager")


def get_stance() -> str:
    return _stance


def set_logs(spec: str) -> None:
    """Enables log categories, TGC_LOGS syntax: "recompiles,guards",
    "graph", "output_code", "all", "" (none)."""
    global _logs, _verbose
    words = [n.strip() for n in spec.split(",") if n.strip()]
    names = {n.lstrip("+") for n in words}
    _verbose = {n.lstrip("+") for n in words if n.startswith("+")}
    if "all" in names:
        names = set(_LOG_NAMES)
    unknown = names - set(_LOG_NAMES)
    if unknown:
        warnings.warn(f"TGC_LOGS: unknown categories {sorted(unknown)}; known: {_LOG_NAMES}")
    _logs = names & set(_LOG_NAMES)


set_logs(os.environ.get("TGC_LOGS", ""))


def _keep_code() -> bool:
    """Whether compiles keep their generated code (for the logs that
    print it and for TGC_TRACE's report)."""
    return bool(_logs & {"output_code", "guard_code"}) or bool(os.environ.get("TGC_TRACE"))


def _log(category: str, text: str) -> None:
    if category in _logs:
        for line in text.rstrip("\n").split("\n"):
            print(f"[tgc] {line}", file=sys.stderr)


def describe_key(key) -> str:
    def show(k):
        tag = k[0]
        if tag == "T":
            return "<tensor>"
        if tag == "c":
            return repr(k[2])
        if tag == "f":
            return repr(float.fromhex(k[2]))
        if tag in ("dict", "defaultdict"):
            return "{" + ", ".join(f"{show(n)}: {show(v)}" for n, v in k[2]) + "}"
        if tag == "namedtuple":
            return k[1].__name__ + "(" + ", ".join(show(e) for e in k[2]) + ")"
        if tag in ("dataclass", "dataclass-init"):
            items = list(k[2]) + (list(k[3]) if tag == "dataclass-init" else [])
            return k[1].__name__ + "(" + ", ".join(f"{n}={show(v)}" for n, v in items) + ")"
        if tag == "seq":
            return k[1].__name__ + "(" + ", ".join(show(e) for e in k[2]) + ")"
        inner = ", ".join(show(e) for e in k[1])
        return f"({inner})" if tag == "tuple" else f"[{inner}]"

    return show(key)


def _entry_name(fn) -> str:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    name = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return name if name and not name[0].isdigit() else "f_" + name


_native = _native_path.load()


# Live compiled functions: a module hook registered or removed sends all
# their calls to the Python path, which recompiles the specializations
# traced before it (tgc._state, "module hooks").
_live: "weakref.WeakSet" = weakref.WeakSet()


def _hooks_changed() -> None:
    for f in list(_live):
        f._native_dirty = True
        if _native is not None:
            f._set_native_entries([])


_state.on_hooks_changed(_hooks_changed)


class CompiledFunction(_native.Dispatcher if _native is not None else object):
    """What tgc.compile returns: call it like the original.

    A call goes first to the native call path (tgc._native_path, the base
    class), which runs the specializations it was given; what it does not
    serve comes to `_call_python`.
    """

    def __init__(
        self,
        fn: Callable,
        dynamic: Optional[bool] = None,
        mode: str = "default",
        device: Optional[str] = None,
        fullgraph: bool = False,
        fallback: bool = False,
        recompile_limit: int = DEFAULT_RECOMPILE_LIMIT,
        options: str = "",
    ):
        if mode not in _MODES:
            raise ValueError(f"unknown mode {mode!r}; expected one of {tuple(_MODES)}")
        if dynamic not in (None, True, False):
            raise ValueError("dynamic must be None, True or False")
        if isinstance(recompile_limit, bool) or not isinstance(recompile_limit, int) \
                or recompile_limit < 0:
            raise ValueError(
                f"recompile_limit must be an int >= 0 (recompiles after the first "
                f"compile), got {recompile_limit!r}")
        if not isinstance(options, str):
            raise ValueError(f"options must be a string, got {type(options).__name__}")
        if device not in (None, "cpu", "cuda") and not (
                isinstance(device, str) and device.startswith("cuda:")) and not isinstance(
                device, torch.device):
            raise ValueError(f"device must be None, 'cpu' or 'cuda', got {device!r}")
        _live.add(self)
        self.fn = fn
        self.dynamic = dynamic
        self.mode = mode
        self.device = device
        self.fullgraph = fullgraph
        self.fallback = fallback
        self.recompile_limit = recompile_limit
        self.extra_options = options
        self.name = _entry_name(fn)
        self.specs: List[Specialized] = []
        self.recompile_reasons: List[str] = []
        self.auto_dynamic: Dict[int, Set[int]] = {}
        self.fallbacks = 0  # calls that ran eagerly
        self.fallback_reasons: List[str] = []  # why, once per decision
        self.eager_reason: Optional[str] = None
        # A graph traced with autocast's casts as ops (tgc._autograd's
        # forward and backward, keyed by autocast's state): it may run
        # under autocast.
        self.casts_traced = False
        # Results returned from this position on share one allocation per
        # dtype on the native path (a training forward's saved tensors:
        # tgc._native_path._pool).
        self.pooled_from: Optional[int] = None
        self.declared_dynamic: Dict[int, Set[int]] = {}
        # Sizes of graph-break results that changed between calls
        # ((island, result) -> dims; see tgc._breaks).
        self.island_sizes = BreakSizes(all_dynamic=dynamic is True)
        # Every size of a graph-break result dynamic from the first trace
        # (a dynamic training graph's islands: their batch sizes change
        # with the inputs', a recompile each otherwise).
        self.dynamic_islands = False
        # One-element inputs read as numbers whose value changed: numbers
        # in the graph from then on, in FX graphs (tgc._scalars).
        self.data_inputs: Set[int] = set()
        self.ranges: Dict[Tuple[int, int], Tuple[int, Optional[int]]] = {}
        # `specs` and the hit counts change under `_lock`; compiles (and the
        # state they change: auto-dynamic dims, reasons, the fallback) are
        # serialized by `_compile_lock`.
        self._lock = threading.Lock()
        self._compile_lock = threading.RLock()
        # The specializations or their captured tensors changed: the native
        # path's list is made again after the call.
        self._native_dirty = False
        # Calls that need gradients (tgc._autograd), made on the first one.
        self._training: Optional["_autograd.Training"] = None

    # -- dispatch ------------------------------------------------------------

    def _call_python(self, *args, **kwargs):
        try:
            return self._call(*args, **kwargs)
        finally:
            if self._native_dirty:
                self._sync_native()

    if _native is None:
        __call__ = _call_python

    def _sync_native(self) -> None:
        """Lists the specializations the native path may run, most
        recently used first."""
        self._native_dirty = False
        if _native is None:
            return
        entries = []
        if self.eager_reason is None and not self.ranges:
            with self._lock:
                specs = list(self.specs)
            entries = [e for e in (_native_path.entry(s, self.pooled_from)
                                   for s in reversed(specs)) if e is not None]
        self._set_native_entries(entries)

    def _call(self, *args, **kwargs):
        if _stance == "force_eager":
            return self.fn(*args, **kwargs)
        if _tracing.tracing_here():
            # Called while another compiled function traces (a compiled
            # submodule inside a compiled model): its code is traced into
            # the caller's graph, as torch.compile inlines nested ones.
            return self.fn(*args, **kwargs)
        try:
            originals, keys = flatten((args, kwargs))
        except Unsupported as e:
            if not self.fallback:
                raise
            # Arguments TGC cannot key a specialization on: this call runs
            # eagerly (the next, with other arguments, may compile).
            self.fallbacks += 1
            reason = f"{self.name}: a call ran eagerly: {e}"
            if reason not in self.fallback_reasons:
                self.fallback_reasons.append(reason)
                warnings.warn(f"tgc: {reason}")
            return self.fn(*args, **kwargs)
        # (An exported program's ranges hold for training calls too.)
        self._check_ranges(originals)
        if torch.is_grad_enabled() and self._wants_grad(originals):
            # Gradients flow through the call: compiled forward and backward
            # graphs under autograd (tgc._autograd), never the ones below.
            return self._training_path()(args, kwargs)
        if self.eager_reason is not None:
            self.fallbacks += 1
            return self.fn(*args, **kwargs)
        if _state.autocast_enabled() and not self.casts_traced:
            # The tracer sees F.linear, not the casts autocast puts around
            # it below: no inference specialization models them. Eager.
            self.fallbacks += 1
            reason = (f"{self.name}: calls under torch.autocast run eagerly (inference "
                      f"specializations do not model its casts; training calls compile)")
            if reason not in self.fallback_reasons:
                self.fallback_reasons.append(reason)
                warnings.warn(f"tgc: {reason}")
            return self.fn(*args, **kwargs)
        # The compiled code reads dense row-major tensors (a guard checks it).
        tensors = [t if t.is_contiguous() else t.contiguous() for t in originals]
        # A 0-d CPU tensor beside CUDA tensors is a scalar to PyTorch (Dynamo
        # passes Python floats of a dynamic graph that way): on the device.
        cuda = next((t.device for t in tensors if t.is_cuda), None)
        if cuda is not None and any(t.dim() == 0 and not t.is_cuda for t in tensors):
            tensors = [t.to(cuda) if t.dim() == 0 and not t.is_cuda else t for t in tensors]
        found = self._lookup(tensors, keys)
        if found[0] is not None:
            try:
                return self._run(found[0], originals, tensors, found[1])
            except BreakMiss as e:
                return self._break_miss(e, args, kwargs, originals, tensors, keys)
        # A miss compiles under the function's compile lock; a thread that
        # waited for it looks again first: the specialization it needs may
        # be the one the other thread just made (one compile per
        # specialization, whatever the number of threads).
        with self._compile_lock:
            spec, full, failures = self._lookup(tensors, keys)
            if spec is None:
                try:
                    return self._miss(args, kwargs, originals, tensors, keys, failures)
                except BreakMiss as e:
                    return self._eager_after_miss(e, args, kwargs)
        try:
            return self._run(spec, originals, tensors, full)
        except BreakMiss as e:
            return self._break_miss(e, args, kwargs, originals, tensors, keys)

    def _training_path(self) -> "_autograd.Training":
        if self._training is None:
            self._training = _autograd.Training(self)
        return self._training

    def _wants_grad(self, tensors) -> bool:
        """Whether an argument, a reachable parameter or a tensor a
        specialization captured requires grad (grad mode is on); the state
        checked here is the call's (`fresh_state`)."""
        training = self._training_path()
        training.fresh_state = None
        if any(t.requires_grad for t in tensors):
            return True
        if training.state().requires_grad():
            training.fresh_state = training._state
            return True
        with self._lock:
            specs = list(self.specs)
        return any(s.captured.requires_grad() for s in specs)

    def _break_miss(self, e: BreakMiss, args, kwargs, originals, tensors, keys):
        """A later region or a graph break's result rejected the call (see
        tgc._breaks): the sizes that changed become dynamic and the call
        compiles a new specialization (nothing has been written yet)."""
        if getattr(e, "overlap", None) is not None:
            return self._eager_after_miss(e, args, kwargs)
        with self._compile_lock:
            for key, d in e.dims:
                self.island_sizes.make_dynamic(key, d)
            try:
                return self._miss(args, kwargs, originals, tensors, keys, [str(e)])
            except BreakMiss as again:
                return self._eager_after_miss(again, args, kwargs)

    def _eager_after_miss(self, e: BreakMiss, args, kwargs):
        overlap = getattr(e, "overlap", None)
        if overlap is not None:
            try:
                result = self.fn(*args, **kwargs)
            except RuntimeError as err:
                if getattr(e, "eager_call", False):
                    raise  # the model's own error (eager_reason), not the arguments
                # An out= tensor that overlaps an input: PyTorch refuses it.
                raise _capi.TgcError(
                    f"{self.name}: invalid arguments: {overlap} (PyTorch refuses them "
                    f"too: {str(err).splitlines()[0]})") from err
            self.fallbacks += 1
            msg = f"{self.name}: a call with {e}; ran eagerly"
            if msg not in self.fallback_reasons:
                self.fallback_reasons.append(msg)
            _log("recompiles", msg)
            return result
        self.fallbacks += 1
        msg = f"{self.name}: the new specialization rejects the call too ({e}); ran eagerly"
        self.fallback_reasons.append(msg)
        _log("recompiles", msg)
        return self.fn(*args, **kwargs)

    def _lookup(self, tensors, keys):
        """(spec, descriptors, []) of the specialization whose guards accept
        the call, most recently used first, or (None, None, failures)."""
        with self._lock:
            specs = list(self.specs)
        # Descriptors once per call per set of captured tensors (a module's
        # specializations all capture the same parameters).
        descriptors: Dict[Tuple[int, ...], _capi.Args] = {}
        failures: List[str] = []
        for i in range(len(specs) - 1, -1, -1):
            spec = specs[i]
            if spec.hooks_version != _state.hooks_version():
                failures.append(f"specialization {i}: a module hook was registered or "
                                f"removed since it was traced")
                continue
            if spec.default_dtype is not None and spec.default_dtype != torch.get_default_dtype():
                failures.append(
                    f"specialization {i}: torch.get_default_dtype() was "
                    f"{spec.default_dtype}, now {torch.get_default_dtype()}")
                continue
            tf32 = spec.tf32 and _state.Tf32Guard(spec.tf32).check()
            if tf32:
                failures.append(f"specialization {i}: {tf32}")
                continue
            if spec.keys != keys:
                failures.append(
                    f"specialization {i}: the non-tensor arguments differ "
                    f"({describe_key(spec.keys)} vs {describe_key(keys)})"
                )
                continue
            eager = next(((a, d, r, l) for a, d, r, l in spec.trace.eager_inputs
                          if (tensors[a].dtype, tensors[a].dim(), tensors[a].layout)
                          != (d, r, l)), None)
            if eager is not None:
                a, d, r, _ = eager
                t = tensors[a]
                failures.append(
                    f"specialization {i}: input {spec.names().name(a)} (an eager value) "
                    f"was {d} of rank {r}, "
                    f"now {t.dtype} of rank {t.dim()}")
                continue
            bad = next(
                ((a, v) for a, v in spec.trace.value_specs if tensors[a].item() != v), None
            )
            if bad is not None:
                # Read as a number in an FX graph from now on (tgc._scalars).
                self.data_inputs.add(bad[0])
                failures.append(
                    f"specialization {i}: input {spec.names().name(bad[0])} was read as "
                    f"the number {bad[1]!r}, "
                    f"now {tensors[bad[0]].item()!r}"
                )
                continue
            if spec.trace.grad_mode is not None and spec.trace.grad_mode != torch.is_grad_enabled():
                failures.append(f"specialization {i}: torch.is_grad_enabled() was "
                                f"{spec.trace.grad_mode} when traced (the function reads it)")
                continue
            changed = next((m for m in (g.check() for g in spec.trace.value_guards) if m),
                           None)
            if changed is not None:
                failures.append(f"specialization {i}: {changed}")
                continue
            # Parameters and buffers as the module holds them now.
            captured, refreshed = spec.captured.current()
            if refreshed:
                self._native_dirty = True
            if spec.captured.stale is not None:
                failures.append(f"specialization {i}: {spec.captured.stale}")
                continue
            if spec.trace.program is not None:
                full = _capi.Args(spec.first_tensors(tensors, captured))
            else:
                key = tuple(id(t) for t in captured)
                full = descriptors.get(key)
                if full is None:
                    full = descriptors[key] = _capi.Args(tensors + captured)
            failed = spec.compiled.check(full)
            if failed == -1 and spec.trace.size_guards:
                # Relations Python decisions depended on (after the compiled
                # guards: ranks are checked, every size read is in range).
                bad_guard = next((g for g in spec.trace.size_guards
                                  if not g.holds(lambda a, d: tensors[a].shape[d])), None)
                if bad_guard is not None:
                    failures.append(spec.names().rename(
                        f"specialization {i}: size guard {bad_guard.text} "
                        f"failed ({bad_guard.reason})"))
                    continue
            if failed == -1:
                with self._lock:
                    spec.hits += 1
                    # Most recently used last (another thread may have
                    # reordered the list since the snapshot).
                    at = next((k for k, x in enumerate(self.specs) if x is spec), None)
                    if at is not None and at != len(self.specs) - 1:
                        self.specs.append(self.specs.pop(at))
                return spec, full, []
            failures.append(self._why(spec, failed, full, i))
        return None, None, failures

    def _why(self, spec: Specialized, failed: int, call: _capi.Args, index: int) -> str:
        text = spec.compiled.describe(failed, call)
        m = re.search(r"arg(\d+)_dim(\d+) ==", text)
        if m and spec.trace.program is None:
            arg, dim = int(m.group(1)), int(m.group(2))
            for s in spec.trace.specializations:
                if s.arg == arg and s.dim == dim:
                    text += f"; the size was specialized ({s.reason})"
        return f"specialization {index}: {spec.compiled_names().rename(text)}"

    def _miss(self, args, kwargs, originals, tensors, keys, failures: List[str]):
        first = not self.specs
        reason = (
            f"compiling {self.name} (first call)"
            if first
            else f"recompiling {self.name}: " + "; ".join(failures[:3])
        )
        if not first:
            if _stance == "fail_on_recompile":
                raise RecompileError(reason)
            if _stance == "eager_on_recompile":
                self.fallbacks += 1
                self.fallback_reasons.append(reason + " (stance eager_on_recompile)")
                _log("recompiles", reason + " -> running eagerly (stance eager_on_recompile)")
                return self.fn(*args, **kwargs)
            if len(self.specs) > self.recompile_limit:
                self.fallbacks += 1
                msg = f"{reason}: recompile limit ({self.recompile_limit}) reached"
                self.fallback_reasons.append(msg)
                if not self.fallback:
                    raise RecompileError(msg + "; raise it with recompile_limit=")
                warnings.warn(msg + "; running eagerly")
                return self.fn(*args, **kwargs)
            self.recompile_reasons.append(reason)
        _log("recompiles", reason)
        try:
            spec, full = self._compile(tensors, keys)
        except Unsupported as e:
            if not self.fallback:
                raise
            self.eager_reason = str(e)
            self._native_dirty = True
            self.fallbacks += 1
            self.fallback_reasons.append(f"{self.name} runs eagerly from now on: {e}")
            warnings.warn(f"tgc: {self.name} runs eagerly: {e}")
            return self.fn(*args, **kwargs)
        with self._lock:
            self.specs.append(spec)
            index = len(self.specs) - 1
        self._native_dirty = True
        if "compile_time" in _logs:
            _log("compile_time", f"{self.name}: {spec.report(index).headline()}")
        _report_trace(self)
        if torch.is_grad_enabled() and any(t.requires_grad for t in spec.captured.tensors):
            # The trace found a tensor that requires grad outside the
            # arguments (a global): the call needs gradients after all.
            return self._training_path()(args, kwargs)
        return self._run(spec, originals, tensors, full)

    # -- compile -------------------------------------------------------------

    def _dynamic_dims(self, tensors: Sequence[torch.Tensor]) -> List[Set[int]]:
        out: List[Set[int]] = []
        for i, t in enumerate(tensors):
            if self.dynamic is True:
                dims = set(range(t.dim()))
            elif self.dynamic is False:
                dims = set()
            else:
                dims = set(self.auto_dynamic.get(i, set()))
            dims |= self.declared_dynamic.get(i, set())
            out.append(dims)
        return out

    def _compile(self, tensors, keys) -> Tuple[Specialized, _capi.Args]:
        """A new specialization for the call, and the call's descriptors."""
        # Automatic dynamic: a size that differs from an earlier
        # specialization's example becomes dynamic.
        if self.dynamic is None:
            for spec in self.specs:
                for i, t in enumerate(tensors):
                    ex = spec.example_shapes[i] if i < len(spec.example_shapes) else None
                    if ex is not None and len(ex) == t.dim():
                        for d, (a, b) in enumerate(zip(ex, t.shape)):
                            if a != b:
                                self.auto_dynamic.setdefault(i, set()).add(d)
        dynamic = self._dynamic_dims(tensors)
        # Trace on copies: the function may update its inputs in place.
        tensor_clones = [t.detach().clone() for t in tensors]
        call_args, call_kwargs = unflatten(keys, list(tensors))
        input_names = _names.input_names(self.fn, call_args, call_kwargs)

        # The caller's grad mode (nothing requires grad on this path): the
        # function may read it (torch.is_grad_enabled(), a guard then).
        grad = torch.is_grad_enabled()

        def run(*tensor_args):
            args, kwargs = unflatten(keys, list(tensor_args))
            with torch.set_grad_enabled(grad):
                return self.fn(*args, **kwargs)

        start = time.perf_counter()
        module = self._module()
        breaks = None if self.fullgraph else self.island_sizes
        self.island_sizes.all_dynamic = self.dynamic is True or self.dynamic_islands
        # The trace runs random operators for real: the generators' states
        # are put back, so that the compiled call (a graph break calling
        # torch.rand) draws what the eager call would have drawn.
        rng = _rng_state()
        try:
            tr = trace(run, tensor_clones, dynamic, name=self.name, module=module,
                       source=self.fn, breaks=breaks, data_inputs=self.data_inputs,
                       input_names=input_names, originals=tensors)
            if tr.program is not None and self._island_sizes_changed(tr):
                # As for inputs: a graph break's result whose size differs
                # from the last specialization's becomes dynamic (one trace
                # more, instead of one compile more when the next size comes).
                _set_rng_state(rng)
                tensor_clones = [t.detach().clone() for t in tensors]
                tr = trace(run, tensor_clones, dynamic, name=self.name, module=module,
                           source=self.fn, breaks=breaks, data_inputs=self.data_inputs,
                           input_names=input_names, originals=tensors)
        finally:
            _set_rng_state(rng)
        trace_ms = (time.perf_counter() - start) * 1e3
        _log("graph", f"graph of {self.name} ({tr.ops} ops, traced in {trace_ms:.1f} ms):\n{tr.text}")
        names = _names.ArgNames(tr.arg_names)
        device = self._device(tensors + tr.captured,
                              [f"input {names.name(i)}" for i in range(len(tensors))]
                              + [f"captured tensor {names.name(len(tensors) + k)}"
                                 if tr.arg_names[len(tensors) + k] else
                                 "a captured tensor (unnamed)" for k in range(len(tr.captured))])
        if tr.program is not None:
            return self._compile_program(tr, tensors, keys, device, module, trace_ms)
        compiled = self._compile_text(tr.text, self.name, device,
                                      [list(t.shape) for t in tensors + tr.captured])
        call = _capi.Args(tensors + tr.captured)
        if compiled.check(call) != -1 and device == "cuda":
            # Misaligned views: the same code without vector accesses.
            compiled = self._compile_text(tr.text, self.name, device,
                                          [list(t.shape) for t in tensors + tr.captured],
                                          "vectorize=0")
        self._check_accepts(compiled, call)
        spec = self._specialized(compiled, tr, keys, tensors, module, trace_ms=trace_ms)
        if device == "cpu":
            spec.arena_bytes = compiled.arena_bytes(call)
        _log_code(self.name, [compiled])
        return spec, call

    def _island_sizes_changed(self, tr: TraceResult) -> bool:
        last = next((s.trace.program for s in reversed(self.specs)
                     if s.trace.program is not None), None)
        if last is None:
            return False
        changed = False
        for new, old in zip(tr.program.islands, last.islands):
            if new.op != old.op or len(new.slots) != len(old.slots):
                break
            for k, (a, b) in enumerate(zip(new.slots, old.slots)):
                if a.eager or len(a.shape) != len(b.shape):
                    continue
                for d, (x, y) in enumerate(zip(a.shape, b.shape)):
                    if x != y and d not in a.dynamic and \
                            self.island_sizes.make_dynamic((new.index, k), d):
                        changed = True
        return changed

    def _compile_text(self, text: str, entry: str, device: str,
                      shapes: Sequence[Sequence[int]], extra: str = ""):
        # No duck sizing: the tracer knows which sizes are equal (one Dyn per
        # expression, relations guarded where Python compared them); equal
        # example sizes are a coincidence here (a batch of 3 beside 3
        # channels made them one symbol: a recompile when the batch changed).
        opts = [f"device={device}", "duck=0",
                "keep-code=1" if _keep_code() else ""]
        if device == "cuda" and _MODES[self.mode]:
            # Device-side checks assert in the graph (gathers inside their
            # own kernels), as eager's and Inductor's kernels do, so no
            # replay waits for them (docs/python.md, "Device-side
            # checks"); options= may say device-asserts=0.
            opts.append("cuda-graphs=1 device-asserts=1")
        tf32 = _state.tf32_flags()  # CUDA only: the CPU's products are f32
        if device == "cuda":
            opts.append(f"tf32-matmuls={int(tf32[0])} tf32-convolutions={int(tf32[1])} "
                        f"cudnn-convolutions={int(_state.cudnn_convolutions())}")
        if device == "cpu":
            libs = _capi.bundled_shared_libs()
            if libs:
                opts.append("shared-libs=" + ":".join(libs))
        for i, shape in enumerate(shapes):
            if len(shape):
                opts.append(f"example={i}:" + "x".join(str(s) for s in shape))
        opts += [_cache.compile_options(), self.extra_options, extra]
        options = " ".join(o for o in opts if o)
        try:
            with _watch.slow_compile(text, entry, options):
                compiled = _capi.Compiled(text, entry, options)
            compiled.tf32 = _state.tf32_record(compiled.code("tf32").split(), tf32)
            _cache.note(compiled, entry, _log)
            return compiled
        except _capi.TgcError as e:
            if "does not parse" in str(e):
                # The tracer emitted IR the verifier rejects: TGC's bug, but
                # one that fallback=True can absorb like any unsupported op.
                # The line it names is quoted for the report.
                m = re.search(r'"<input>":(\d+):\d+', str(e))
                lines = text.splitlines()
                line = lines[int(m.group(1)) - 1].strip() if m and \
                    0 < int(m.group(1)) <= len(lines) else ""
                raise Unsupported(
                    f"internal error: the traced graph of {entry} does not "
                    f"verify ({str(e).split(':', 2)[-1].strip()})"
                    + (f" in `{line}`" if line else "") + "; please report it"
                ) from e
            if "not supported on the GPU" in str(e):
                # A GPU coverage gap, like an unsupported op: fallback=True
                # and the torch.compile backend run it eagerly.
                raise Unsupported(
                    f"{entry}: {str(e).strip().splitlines()[-1]}"
                ) from e
            raise

    def _check_accepts(self, compiled, call: _capi.Args) -> None:
        failed = compiled.check(call)
        if failed != -1:
            why = compiled.describe(failed, call)
            # A buffer the code writes (an out= tensor, an input updated
            # in place) overlaps another input (no_alias: "argI does not
            # alias argJ"; no_alias_outs: "... alias no other tensor
            # argument"): no specialization accepts these arguments. Eager
            # decides, this call (f(x, x) with x.add_(1) runs in program
            # order; an out= tensor overlapping an input raises).
            if " does not alias " in why or " alias no other tensor argument" in why:
                e = BreakMiss(f"arguments that overlap a buffer it writes: {why}")
                e.overlap = why
                raise e
            raise _capi.TgcError(
                f"internal error: the new specialization of {self.name} rejects the "
                f"arguments it was compiled for: {why}"
            )

    def _compile_program(self, tr: TraceResult, tensors, keys, device: str, module,
                         trace_ms: float = 0.0):
        """Compiles the regions of a trace with graph breaks (see
        tgc._breaks); the first region's guards select the specialization."""
        program = tr.program
        ms = 0.0
        for region in program.regions:
            region.compiled = self._compile_text(region.text, region.name, device,
                                                 region.example_shapes)
            ms += region.compiled.compile_ms
        first = program.steps[0].compiled
        for b in program.breaks:
            _log("graph_breaks", f"{self.name}: graph break: {b}")
        spec = self._specialized(
            first, tr, keys, tensors, module, ms,
            f"{len(program.regions)} regions, {len(program.islands)} graph breaks, ",
            trace_ms)
        _log_code(self.name, [r.compiled for r in program.regions])
        call = _capi.Args(spec.first_tensors(tensors, tr.captured))
        self._check_accepts(first, call)
        return spec, call

    def _specialized(self, compiled, tr: TraceResult, keys, tensors, module,
                     compile_ms: Optional[float] = None, what: str = "",
                     trace_ms: float = 0.0) -> Specialized:
        spec = Specialized(
            compiled=compiled,
            trace=tr,
            keys=keys,
            example_shapes=[list(t.shape) for t in tensors],
            captured=_state.CapturedTensors(list(tr.captured), tr.captured_names, module,
                                            seed_index=tr.seed_index,
                                            perms=list(tr.captured_perms),
                                            origs=list(tr.captured_origs),
                                            sources=list(tr.captured_sources)),
            compile_ms=compile_ms,
            trace_ms=trace_ms,
            default_dtype=torch.get_default_dtype(),
            hooks_version=_state.hooks_version(),
            tf32=tuple(sorted({rec for c in ([r.compiled for r in tr.program.regions]
                                             if tr.program else [compiled])
                               for rec in getattr(c, "tf32", ())})),
        )
        if "guards" not in _logs:
            return spec  # the report reads every guard's text: ~25 ms on ConvNeXt
        ms = compiled.compile_ms if compile_ms is None else compile_ms
        _log(
            "guards",
            f"guards of {self.name} specialization {len(self.specs)} "
            f"({what}compiled in {ms:.1f} ms):\n"
            + "\n".join("  " + g for g in spec.guard_report("guards" in _verbose)),
        )
        return spec

    def _module(self) -> Optional[torch.nn.Module]:
        """The module whose parameters, buffers and attributes the compiled
        function reads: the compiled module, or the owner of a compiled
        bound method."""
        if isinstance(self.fn, torch.nn.Module):
            return self.fn
        held = getattr(self.fn, "__tgc_module__", None)  # tgc.fx.compile_graph_module
        if isinstance(held, torch.nn.Module):
            return held
        owner = getattr(self.fn, "__self__", None)
        return owner if isinstance(owner, torch.nn.Module) else None

    def _device(self, tensors: Sequence[torch.Tensor], names: Sequence[str] = ()) -> str:
        devices = {t.device.type for t in tensors}
        if self.device is not None:
            want = torch.device(self.device).type
            if devices - {want}:
                raise Unsupported(f"inputs on {sorted(devices)} but device={self.device!r}")
            devices = {want}
        if len(devices) > 1:
            # Name the tensors on the less common device: usually one
            # created on the CPU inside the function.
            count = {d: sum(t.device.type == d for t in tensors) for d in devices}
            rare = min(devices, key=lambda d: count[d])
            which = [f"{names[i] if i < len(names) else f'tensor {i}'} "
                     f"{list(t.shape)} {t.dtype}"
                     for i, t in enumerate(tensors) if t.device.type == rare][:3]
            raise Unsupported(f"inputs on several devices: {sorted(devices)}; on {rare}: "
                              + ", ".join(which))
        dev = devices.pop() if devices else "cpu"
        if dev not in ("cpu", "cuda"):
            raise Unsupported(f"device {dev}")
        return dev

    # -- run -------------------------------------------------------------------

    def _run(self, spec: Specialized, originals, tensors, call: _capi.Args):
        why = eager_reason(spec, originals, tensors)
        if why is not None:
            e = BreakMiss(why)
            e.overlap = why  # this call runs eagerly (_eager_after_miss)
            e.eager_call = True
            raise e
        if spec.trace.program is not None:
            return self._run_program(spec, originals, tensors, call)
        # The guards checked contiguity; inputs are used in place.
        device = torch.device(spec.compiled.device)
        if spec.captured.seed_index is not None:  # this call's seed (CapturedTensors.for_call)
            call = _capi.Args(list(tensors) + spec.captured.for_call(spec.captured.current()[0]))
        if _check.enabled():
            inputs = list(call.tensors)  # (this call's seed, if any)
            before = _check.host_copies(inputs)
        results = spec.compiled.run(call, device)
        if _check.enabled():
            _check.compare(spec.trace.text, self.name, before, inputs, results,
                           spec.compiled.device)
        if _profile.active():
            _profile.record(spec.compiled, self.name,
                            list(tensors) + spec.captured.current()[0])
        return _results(spec, originals, tensors, results)

    def _run_program(self, spec: Specialized, originals, tensors, call: _capi.Args):
        """Regions and graph breaks in order (tgc._breaks); raises
        BreakMiss before anything is written when a later one rejects the
        call."""
        program = spec.trace.program
        device = torch.device(spec.compiled.device)
        # This call's seed for random operators in every region (for_call).
        env = spec.environment(tensors, spec.captured.for_call(spec.captured.current()[0]))
        if spec.captured.seed_index is not None and hasattr(program.steps[0], "compiled"):
            call = _capi.Args([env[n] for n in program.steps[0].args])
        for step in program.steps:
            if not hasattr(step, "compiled"):
                run_island(step, env, device)
                continue
            args = [env[n] for n in step.args]
            if step is not program.steps[0]:
                call = _capi.Args(args)
                failed = step.compiled.check(call)
                if failed != -1:
                    raise BreakMiss(f"{step.name}: {step.compiled.describe(failed, call)}")
            if _check.enabled():
                before = _check.host_copies(args)
            results = step.compiled.run(call, device)
            if _check.enabled():
                _check.compare(step.text, step.name, before, args, results,
                               step.compiled.device)
            if _profile.active():
                _profile.record(step.compiled, step.name, args)
            results = list(results)
            for k in step.unsigned:  # uint8, returned as its i8 storage
                results[k] = results[k].view(torch.uint8)
            env.update(zip(step.results, results))
        return _results(spec, originals, tensors,
                        [env[n] for n in program.outputs], env)

    def _check_ranges(self, tensors) -> None:
        if not self.ranges:
            return
        for (i, d), (lo, hi) in self.ranges.items():
            s = int(tensors[i].shape[d])
            if s < lo or (hi is not None and s > hi):
                raise ValueError(
                    f"input {i} dim {d} is {s}, outside the range [{lo}, {hi}] "
                    "the program was exported with"
                )

    # -- introspection ---------------------------------------------------------

    def explain(self) -> Explanation:
        with self._lock:
            specs = list(self.specs)
        reports = [s.report(i, "guards" in _verbose) for i, s in enumerate(specs)]
        return Explanation(
            compiles=len(specs),
            graphs=[s.trace.text for s in specs],
            guards=[r.guards for r in reports],
            recompile_reasons=list(self.recompile_reasons),
            compile_ms=[r.compile_ms for r in reports],
            hits=[s.hits for s in specs],
            fallbacks=self.fallbacks,
            fallback_reasons=list(self.fallback_reasons),
            graph_breaks=list({(b.op, b.where): b for s in specs if s.trace.program
                               for b in s.trace.program.breaks}.values()),
            training=self._training.describe() if self._training is not None else [],
            name=self.name,
            specializations=reports,
            eager_reason=self.eager_reason,
        )


def _report_trace(compiled: "CompiledFunction") -> None:
    """TGC_TRACE=dir: the compiled function's report, written again after
    each compile (tgc._report)."""
    folder = os.environ.get("TGC_TRACE")
    if folder:
        from . import _report

        _report.write_trace(compiled.explain(), folder)


def _log_code(name: str, parts) -> None:
    """TGC_LOGS=output_code: the kernels and the launch plan (GPU) or the
    loops (CPU) of each compiled function; guard_code: its guard function."""
    for p in parts:
        if "output_code" in _logs:
            _log("output_code", f"output code of {name} ({p.device}):\n"
                 + (p.code("plan") or p.code("loops")))
        if "guard_code" in _logs:
            _log("guard_code", f"guard function of {name}:\n" + p.code("guards"))


def _results(spec: Specialized, originals, tensors, results, env=None):
    """The call's return value: the compiled results, the inputs returned
    as they are, eager values of graph breaks, sizes and constants; in-place
    updates of non-contiguous inputs are copied back first."""
    for i in spec.trace.mutated_args:
        if originals[i] is not tensors[i]:  # a non-contiguous input
            originals[i].copy_(tensors[i])
    if spec.trace.unsigned_results:  # uint8, returned as its i8 storage
        results = list(results)
        for k in spec.trace.unsigned_results:
            results[k] = results[k].view(torch.uint8)
    leaves = []
    for kind, payload in spec.trace.outputs:
        if kind == "result":
            leaves.append(results[payload])
        elif kind == "moved":
            index, device = payload
            leaves.append(results[index].to(device))
        elif kind == "scalar":
            index, number = payload
            leaves.append(number(results[index].item()))
        elif kind == "eager":
            leaves.append(env[payload])
        elif kind == "arg":
            leaves.append(originals[payload])
        else:
            leaves.append(_returned_value(kind, payload, tensors))
    return rebuild(spec.trace.output_tree, leaves)


def _returned_value(kind: str, payload, tensors):
    """A non-tensor result: a constant, or a size (or torch.Size) computed
    from the call's input sizes."""
    if kind == "size":
        return payload.evaluate(lambda a, d: int(tensors[a].shape[d]))
    if kind == "sizes":
        return torch.Size([e if isinstance(e, int) else
                           e.evaluate(lambda a, d: int(tensors[a].shape[d]))
                           for e in payload])
    return payload


def _rng_state():
    cuda = None
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        cuda = torch.cuda.get_rng_state_all()
    return torch.random.get_rng_state(), cuda


def _set_rng_state(state) -> None:
    cpu, cuda = state
    torch.random.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)


def explain(compiled: CompiledFunction) -> Explanation:
    """Compiles, graphs, guards and recompile reasons of a compiled function."""
    if hasattr(compiled, "_tgc_explain"):  # tgc.compile(opt.step)
        return compiled._tgc_explain()
    compiled = getattr(compiled, "_tgc_compiled", compiled)
    if not isinstance(compiled, CompiledFunction):
        raise TypeError("tgc.explain expects what tgc.compile returned")
    return compiled.explain()
