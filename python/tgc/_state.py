"""What a trace read besides its tensor arguments, and the checks that keep
a compiled specialization honest about it (torch.compile guards the same
things).

* **Python values** (numbers, strings, bools, None, enums, dtypes and
  tuples of them) that the traced code read from a module's attributes
  (`self.training`, `self.eps`, `self.k = 5.0`), from the compiled
  function's globals and from its closure: each is a guard, equal to the
  traced value, with its source line. A change recompiles.
* **Parameters and buffers** of the compiled module are arguments passed by
  reference on every call. They are found again by their names when the
  module's parameter dicts or submodules changed (`m.weight =
  nn.Parameter(...)`, `load_state_dict(assign=True)`, a replaced
  submodule), so the current tensor is used; the guards on the arguments
  then decide whether the specialization still fits.

Attribute reads are seen by replacing `torch.nn.Module.__getattribute__`
only while a trace runs (the tracer restores it; nothing of PyTorch's
changes otherwise).
"""

from __future__ import annotations

import contextlib
import dis
import enum
import os
import threading
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch

_MISSING = object()


def is_constant(value: Any) -> bool:
    """A Python value a guard can compare (and that can change a trace)."""
    if value is None or isinstance(value, (bool, int, float, str, enum.Enum,
                                           torch.dtype, torch.device)):
        return True
    if isinstance(value, (tuple, frozenset)):
        return all(is_constant(v) for v in value)
    return False


_FROZEN_ITEMS = 64


def frozen(value: Any) -> Any:
    """A list or dict of constants (nested lists and dicts too, up to 64
    items each) as a snapshot a guard can compare: ("list", items) or
    ("dict", items in order). None for anything else. A mutable value the
    trace read (a closure's list, a module's dict of sizes) changes in
    place: its object stays the same, so its contents are what a guard
    compares."""
    if isinstance(value, (list, dict)) and len(value) <= _FROZEN_ITEMS:
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        items = []
        for k, v in pairs:
            if not is_constant(v):
                v = frozen(v)
                if v is None:
                    return None
            if isinstance(value, dict):
                if not is_constant(k):
                    return None
                items.append((k, v))
            else:
                items.append(v)
        return ("list" if isinstance(value, list) else "dict", tuple(items))
    return None


def same(a: Any, b: Any) -> bool:
    """Equal values of the same type (1 and 1.0 and True are distinct
    guards, as a float attribute turned int may change promotion)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):  # by bits: 0.0 and -0.0 differ (1 / x), NaN is NaN
        return a.hex() == b.hex() or (a != a and b != b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


@dataclass
class ValueGuard:
    """`getter()` must still be `value`."""

    what: str  # "self.blocks[1].training", "global k", "closure k"
    getter: Callable[[], Any]
    value: Any
    where: str = ""
    # (dict, key) when `getter()` is `dict.get(key)`: the native call path
    # checks it without calling Python (tgc._native_path).
    source: Optional[Tuple[dict, str]] = None
    # The same object, not an equal value (a submodule, a tensor attribute:
    # tgc._object_guards).
    identity: bool = False
    # A dict whose size `getter()` is (a module container's entries): the
    # native path checks it without calling Python.
    size_of: Optional[dict] = None
    # An identity guard on a tensor read from `source` itself (not matched
    # by name only): tgc._object_guards.by_source may make it the tensor's
    # source instead.
    resolvable: bool = False

    def check(self) -> Optional[str]:
        source = self.source
        try:
            # (A dict read where the getter is one: the same value, cheaper;
            # the same object is the same value.)
            now = source[0].get(source[1], _MISSING) if source is not None else self.getter()
        except Exception:  # noqa: BLE001 - an attribute deleted since
            now = _MISSING
        if now is self.value or (not self.identity and same(now, self.value)):
            return None
        where = f" (read{' at ' + self.where if self.where else ''})"
        if self.identity:
            from ._object_guards import short
            return (f"{self.what} is the object the trace read{where}: now "
                    f"{'<missing>' if now is _MISSING else 'another, ' + short(now)}")
        shown = "<missing>" if now is _MISSING else repr(now)
        return f"{self.what} == {self.value!r}{where}: now {shown}"

    def describe(self) -> str:
        if self.identity:
            from ._object_guards import short
            return f"{self.what} is the same object ({short(self.value)})  (read" + \
                (f" at {self.where})" if self.where else ")")
        return f"{self.what} == {self.value!r}  (a Python value the trace read" + \
            (f" at {self.where})" if self.where else ")")


# --- attribute reads during a trace ---------------------------------------------


class AttributeRecorder:
    """Records constant attributes read from modules while active."""

    def __init__(self, names: Dict[int, str], frame: Callable[[], Tuple[str, int]],
                 produced: Optional[Callable[[torch.Tensor], bool]] = None):
        self.names = names  # id(module) -> "self.blocks.1"
        self.frame = frame
        # Whether the trace computed a tensor (not one from outside it).
        self.produced = produced
        self.reads: Dict[Tuple[int, str], ValueGuard] = {}
        # Reads by other threads are theirs, not the trace's.
        self.thread = threading.get_ident()
        self._objects: set = set()  # ids of plain objects already snapshotted
        self._nothing: set = set()  # (id(module), name) reads that guard nothing

    def _add(self, key, guards: List[ValueGuard]) -> None:
        for i, g in enumerate(guards):
            self.reads.setdefault(key + (i,), g)

    def guards(self) -> List[ValueGuard]:
        """The guards, once the trace is over. An object guarded by
        identity that is gone or another already (an attribute set only
        while the trace ran, such as functional_call's `_orig_class`) is
        dropped with the guards recorded with it. Values are kept as read
        (a field the forward changes recompiles once). Every constant
        attribute of a plain object is guarded: which ones the model reads
        is not seen (a helper that runs no operator, a property,
        getattr(cfg, "name")), and a guard too many costs a recompile,
        one too few a wrong answer."""
        dropped = {k[:2] for k, g in self.reads.items()
                   if len(k) == 3 and g.identity and g.check() is not None}
        return [g for k, g in self.reads.items() if len(k) != 3 or k[:2] not in dropped]

    def record_member(self, module: torch.nn.Module, name: str, value: Any) -> None:
        """A submodule, parameter or buffer read (Module.__getattr__)."""
        key = (id(module), name)
        if key in self.reads or key + (0,) in self.reads or key in self._nothing:
            return
        from . import _object_guards

        owner = self.names.get(id(module), type(module).__name__)
        guards = _object_guards.member(owner, module, name, value, "")
        if not guards:
            self._nothing.add(key)  # (a parameter: found by name; no frame walk)
            return
        file, line = self.frame()
        for g in guards:
            g.where = f"{file}:{line}"
        self._add(key, guards)

    def record(self, module: torch.nn.Module, name: str, value: Any) -> None:
        if name.startswith("__"):
            return
        if name in _HOOK_DICTS and isinstance(value, dict):
            watch_hooks(value)
            return
        snapshot = None
        if not is_constant(value):
            if isinstance(value, torch.Tensor) or callable(value):
                self._record_object(module, name, value)
                return
            # A public list or dict attribute, by its contents. (Not the
            # module's own private dicts, such as its hook dicts: a Python
            # check per module per call would cost more than the call.)
            if name.startswith("_"):
                return
            snapshot = frozen(value)
            if snapshot is None:
                self._record_object(module, name, value)
                return
        key = (id(module), name)
        if key in self.reads:
            return
        # Instance attributes only: class attributes and methods are code.
        d = object.__getattribute__(module, "__dict__")
        if name not in d:
            return
        owner = self.names.get(id(module), type(module).__name__)
        file, line = self.frame()
        if snapshot is not None:
            # Its contents, through Python (the native path's dictionary
            # check would see the same list object).
            self.reads[key] = ValueGuard(
                f"{owner}.{name}",
                lambda d=d, name=name: frozen(d.get(name, _MISSING)),
                snapshot, f"{file}:{line}")
            return
        self.reads[key] = ValueGuard(
            f"{owner}.{name}",
            lambda d=d, name=name: d.get(name, _MISSING),
            value,
            f"{file}:{line}",
            (d, name),
        )


    def _record_object(self, module: torch.nn.Module, name: str, value: Any) -> None:
        """A tensor, a function or a plain object held as an instance
        attribute (tgc._object_guards)."""
        key = (id(module), name)
        if key in self.reads or key + (0,) in self.reads:
            return
        d = object.__getattribute__(module, "__dict__")
        if d.get(name, _MISSING) is not value or isinstance(value, torch.nn.Module):
            return  # a class attribute or method (code), or a property's value
        from . import _object_guards

        if isinstance(value, torch.Tensor) and self.produced is not None and self.produced(value):
            return  # computed by this trace (a cache the forward set)
        owner = self.names.get(id(module), type(module).__name__)
        file, line = self.frame()
        where = f"{file}:{line}"
        if isinstance(value, torch.Tensor) or callable(value):
            g = _object_guards.identity(f"{owner}.{name}", d, name, value, where)
            g.resolvable = isinstance(value, torch.Tensor)  # read from d[name] itself
            self._add(key, [g])
        elif _object_guards.plain_object(value):
            guards = [_object_guards.identity(f"{owner}.{name}", d, name, value, where)]
            if id(value) not in self._objects:  # (one snapshot per object)
                self._objects.add(id(value))
                guards += _object_guards.object_attributes(f"{owner}.{name}", value, where)
            self._add(key, guards)


_recorders: List[AttributeRecorder] = []
_original_getattribute = None
_original_getattr = None


def _recording_getattr(self, name):
    value = _original_getattr(self, name)
    if _recorders and _recorders[-1].thread == threading.get_ident():
        _recorders[-1].record_member(self, name, value)
    return value


def _recording_getattribute(self, name):
    value = object.__getattribute__(self, name)
    if _recorders and name[:2] != "__" and _recorders[-1].thread == threading.get_ident():
        # (Module.__getattr__ reads __dict__; other threads' reads are theirs)
        _recorders[-1].record(self, name, value)
    return value


def start_recording(recorder: AttributeRecorder) -> None:
    """Installs the recording __getattribute__ (traces are serialized)."""
    global _original_getattribute, _original_getattr
    if not _recorders:
        _original_getattribute = torch.nn.Module.__dict__.get("__getattribute__")
        torch.nn.Module.__getattribute__ = _recording_getattribute
        # Submodules, parameters and buffers: Module.__getattr__ finds them
        # (defined by Module itself: it only changes hands).
        _original_getattr = torch.nn.Module.__dict__["__getattr__"]
        torch.nn.Module.__getattr__ = _recording_getattr
    _recorders.append(recorder)


def stop_recording() -> None:
    _recorders.pop()
    if not _recorders:
        if _original_getattribute is None:
            del torch.nn.Module.__getattribute__
        else:
            torch.nn.Module.__getattribute__ = _original_getattribute
        torch.nn.Module.__getattr__ = _original_getattr


# --- globals and closures of the compiled function ----------------------------


def _code_of(fn) -> Optional[types.CodeType]:
    if isinstance(fn, torch.nn.Module):
        fn = type(fn).forward
    fn = getattr(fn, "__func__", fn)
    return getattr(fn, "__code__", None), fn


def function_value_guards(fn) -> List[ValueGuard]:
    """The constant globals and closure cells the function's own code reads,
    lists and dicts of constants among them by their contents, its
    mutable default arguments, tensors and plain objects among its globals
    and closure (tgc._object_guards), and the attributes of a bound
    method's `self` (helpers it calls: tgc._object_guards.FrameNotes)."""
    code, func = _code_of(fn)
    if code is None:
        return []
    guards: List[ValueGuard] = []
    owner = getattr(fn, "__self__", None)
    if owner is not None and not isinstance(fn, torch.nn.Module):
        from . import _object_guards

        if _object_guards.plain_object(owner):
            guards += _object_guards.object_attributes(
                "self", owner, f"{code.co_filename}:{code.co_firstlineno}")
    where = f"{code.co_filename}:{code.co_firstlineno}"
    globs = getattr(func, "__globals__", {})
    loaded = {ins.argval for ins in dis.get_instructions(code)
              if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    from . import _object_guards

    for name in sorted(loaded):
        if name not in globs:
            continue
        if isinstance(globs[name], (torch.Tensor, torch.nn.Module)):
            # Rebinding it makes another graph input (or other code), not
            # a new value.
            g = _object_guards.identity(f"global {name}", globs, name, globs[name], where)
            g.resolvable = isinstance(globs[name], torch.Tensor)  # a LOAD_GLOBAL of it
            guards.append(g)
            if isinstance(globs[name], _object_guards.CONTAINERS):
                guards += _object_guards.container(f"global {name}", globs[name], where)
        elif _object_guards.plain_object(globs[name]):
            guards.append(_object_guards.identity(f"global {name}", globs, name, globs[name], where))
            guards += _object_guards.object_attributes(f"global {name}", globs[name], where)
        elif is_constant(globs[name]):
            guards.append(ValueGuard(f"global {name}",
                                     lambda g=globs, n=name: g.get(n, _MISSING),
                                     globs[name], where, (globs, name)))
        elif frozen(globs[name]) is not None:
            guards.append(ValueGuard(f"global {name}",
                                     lambda g=globs, n=name: frozen(g.get(n, _MISSING)),
                                     frozen(globs[name]), where))
    for name, cell in zip(code.co_freevars, getattr(func, "__closure__", None) or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, (torch.Tensor, torch.nn.Module)):
            guards.append(ValueGuard(f"closure {name}", lambda c=cell: c.cell_contents, value,
                                     where, identity=True))
            if isinstance(value, _object_guards.CONTAINERS):
                guards += _object_guards.container(f"closure {name}", value, where)
        elif _object_guards.plain_object(value):
            guards.append(ValueGuard(f"closure {name}", lambda c=cell: c.cell_contents, value,
                                     where, identity=True))
            guards += _object_guards.object_attributes(f"closure {name}", value, where)
        elif is_constant(value):
            guards.append(ValueGuard(f"closure {name}",
                                     lambda c=cell: c.cell_contents, value, where))
        elif frozen(value) is not None:
            guards.append(ValueGuard(f"closure {name}",
                                     lambda c=cell: frozen(c.cell_contents),
                                     frozen(value), where))
    # Default arguments a call does not pass are the function's own
    # objects: a list default mutated in place changes what it computes.
    defaults = getattr(func, "__defaults__", None) or ()
    params = code.co_varnames[code.co_argcount - len(defaults):code.co_argcount]
    for i, (name, value) in enumerate(zip(params, defaults)):
        if frozen(value) is not None:
            guards.append(ValueGuard(
                f"default {name}", lambda f=func, i=i: frozen(f.__defaults__[i]),
                frozen(value), where))
    for name, value in (getattr(func, "__kwdefaults__", None) or {}).items():
        if frozen(value) is not None:
            guards.append(ValueGuard(
                f"default {name}",
                lambda f=func, n=name: frozen((f.__kwdefaults__ or {}).get(n, _MISSING)),
                frozen(value), where))
    return guards


# --- parameters and buffers by name ---------------------------------------------


def module_names(root: torch.nn.Module) -> Dict[int, str]:
    """id(submodule) -> "self", "self.blocks.1", ..."""
    out: Dict[int, str] = {}
    for name, m in root.named_modules(remove_duplicate=False):
        out.setdefault(id(m), "self" + ("." + name if name else ""))
    return out


def tensor_names(root: torch.nn.Module) -> Dict[int, str]:
    """id(tensor) -> qualified parameter or buffer name."""
    out: Dict[int, str] = {}
    for prefix, m in root.named_modules():
        for kind in ("_parameters", "_buffers"):
            for name, t in m.__dict__.get(kind, {}).items():
                if t is not None:
                    out.setdefault(id(t), prefix + "." + name if prefix else name)
    return out


def _aliases(root: torch.nn.Module, names: List[Optional[str]]) -> List[List[str]]:
    """For each name, the other names of the same tensor in `root`."""
    wanted = [n for n in names if n is not None]
    if not wanted:
        return [[] for _ in names]
    by_id: Dict[int, List[str]] = {}
    for prefix, m in root.named_modules(remove_duplicate=False):
        for kind in ("_parameters", "_buffers"):
            for k, t in m.__dict__.get(kind, {}).items():
                if t is not None:
                    full = prefix + "." + k if prefix else k
                    by_id.setdefault(id(t), [])
                    if full not in by_id[id(t)]:
                        by_id[id(t)].append(full)
    out = []
    for n in names:
        t = _resolve(root, n)[0] if n is not None else None
        out.append([o for o in by_id.get(id(t), []) if o != n] if t is not None else [])
    return out


def _resolve(root: torch.nn.Module, name: str) -> Tuple[Optional[torch.Tensor], List[Tuple[dict, str, Any]]]:
    """The tensor called `name` now, and the (dict, key, object) links that
    lead to it (each parent's _modules entry, then the _parameters or
    _buffers entry)."""
    parts = name.split(".")
    links: List[Tuple[dict, str, Any]] = []
    m = root
    for p in parts[:-1]:
        mods = m.__dict__.get("_modules", {})
        child = mods.get(p)
        if child is None:
            return None, links
        links.append((mods, p, child))
        m = child
    leaf = parts[-1]
    for kind in ("_parameters", "_buffers"):
        d = m.__dict__.get(kind, {})
        if leaf in d and d[leaf] is not None:
            links.append((d, leaf, d[leaf]))
            return d[leaf], links
    return None, links


@dataclass
class CapturedTensors:
    """The captured tensors of a specialization and how to find them again."""

    tensors: List[torch.Tensor]
    names: List[Optional[str]]  # parameter/buffer name, or None (a global)
    root: Optional[torch.nn.Module] = None
    links: List[Tuple[dict, str, Any]] = field(default_factory=list)
    # The random operators' seed (tgc._ops.random._seed): its index, drawn
    # anew for every call by for_call.
    seed_index: Optional[int] = None
    # The permutation each tensor is passed through (TraceResult.captured_perms).
    perms: List[Optional[Tuple[int, ...]]] = field(default_factory=list)
    # The model's tensor behind each permuted one (None where not permuted):
    # its view is made again when its memory or layout changed.
    origs: List[Optional[torch.Tensor]] = field(default_factory=list)
    # The (dict, key) each unnamed tensor was read from, or None
    # (TraceResult.captured_sources): found again there when rebound.
    sources: List[Optional[Tuple[dict, str]]] = field(default_factory=list)
    # The other names of each named tensor (tied weights: one graph input).
    aliases: List[List[str]] = field(default_factory=list)
    # Why the module's tensors no longer fit the graph (set by current()).
    stale: Optional[str] = None

    def __post_init__(self):
        self.origs = list(self.origs) + [None] * (len(self.tensors) - len(self.origs))
        self.sources = list(self.sources) + [None] * (len(self.tensors) - len(self.sources))
        self.perms = list(self.perms) + [None] * (len(self.tensors) - len(self.perms))
        if self.root is not None and not self.aliases:
            self.aliases = _aliases(self.root, self.names)
        self.links = self._links()
        self._state = (self.tensors, self.links)

    def _links(self) -> List[Tuple[dict, str, Any]]:
        links: List[Tuple[dict, str, Any]] = []
        for i, src in enumerate(self.sources):
            if src is not None:
                held = self.origs[i] if self.origs[i] is not None else self.tensors[i]
                links.append((src[0], src[1], held))
        if self.root is not None:
            for i, name in enumerate(self.names):
                if name is not None:
                    for n in [name] + (self.aliases[i] if i < len(self.aliases) else []):
                        links.extend(_resolve(self.root, n)[1])
        return links

    def snapshot(self) -> Tuple[List[torch.Tensor], List[Tuple[dict, str, Any]]]:
        """The tensors and the links that find them, as one consistent pair
        (another thread may be refreshing them: tgc._native_path)."""
        return self._state

    def for_call(self, tensors: List[torch.Tensor]) -> List[torch.Tensor]:
        """`tensors` (current()'s) with a new seed for this call's random
        operators: drawn from PyTorch's generator of the seed's device, so
        each call gets new random numbers and a run is reproducible under
        torch.manual_seed (as tgc._autograd's training forward seed)."""
        if self.seed_index is None:
            return tensors
        fresh = list(tensors)
        old = fresh[self.seed_index]
        fresh[self.seed_index] = torch.randint(0, 2**62, (), dtype=torch.int64,
                                               device=old.device)
        return fresh

    def requires_grad(self) -> bool:
        """Whether a tensor the specialization passes requires grad, as
        the model holds them now (a global rebound to one that does, not
        yet refreshed by current())."""
        if any(t.requires_grad for t in self.snapshot()[0]):
            return True
        now = (src[0].get(src[1]) for src in self.sources if src is not None)
        return any(isinstance(t, torch.Tensor) and t.requires_grad for t in now)

    def _views_moved(self) -> bool:
        """Whether a tensor passed permuted (its dense view) no longer views
        the model's tensor as it is now (`p.data = ...`, `m.to(...)` swap a
        parameter's memory under the same object)."""
        for i, o in enumerate(self.origs):
            if o is None:
                continue
            v, want = self.tensors[i], o.permute(self.perms[i])
            if v.data_ptr() != want.data_ptr() or v.stride() != want.stride() \
                    or v.shape != want.shape or v.dtype != want.dtype:
                return True
        return False

    def current(self) -> Tuple[List[torch.Tensor], bool]:
        """The tensors to pass now, and whether they changed (re-resolved by
        name: a replaced parameter, buffer or submodule)."""
        for d, key, obj in self.links:
            if d.get(key) is not obj:
                break
        else:
            if not self._views_moved():
                return self.tensors, False
        fresh = list(self.tensors)
        self.stale = None
        for i, src in enumerate(self.sources):
            if src is None:
                continue
            t = src[0].get(src[1])
            if not isinstance(t, torch.Tensor):
                self.stale = f"{src[1]!r}, a tensor when traced, is now {type(t).__name__}"
                return self.tensors, True
            if self.perms[i] is not None:
                self.origs[i] = t
            else:
                fresh[i] = t
        for i, o in enumerate(self.origs):
            if o is not None and self.names[i] is None:  # a global's permuted view
                fresh[i] = o.permute(self.perms[i])
        for i, name in enumerate(self.names):
            if name is None:
                continue
            t, _ = _resolve(self.root, name)
            if t is None:
                # (Linear.bias set to None: the graph adds it.)
                self.stale = f"self.{name} is no longer a tensor of the module"
                return self.tensors, True
            for other in self.aliases[i] if i < len(self.aliases) else ():
                if _resolve(self.root, other)[0] is not t:
                    self.stale = (f"self.{name} and self.{other} were one tensor when traced "
                                  "(tied), now they are not")
                    return self.tensors, True
            perm = self.perms[i]
            fresh[i] = t.permute(perm) if perm is not None else t
            if perm is not None:
                self.origs[i] = t
        # Tensors and links change together: a reader of the pair never
        # sees new tensors with old (or no) links.
        links = self._links()
        self.tensors, self.links = fresh, links
        self._state = (fresh, links)
        return fresh, True


# --- torch.autocast -------------------------------------------------------------
#
# Autocast changes what an operator computes (a matmul in bf16 instead of
# f32) below the functions TGC's tracer sees: an inference specialization
# traced without it must not serve a call under it, and the other way
# round. Calls under autocast run eagerly on the inference path
# (tgc._compile) and key training specializations (tgc._autograd, whose
# trace records autocast's casts).

if hasattr(torch._C, "_is_any_autocast_enabled"):
    autocast_enabled = torch._C._is_any_autocast_enabled
else:  # PyTorch 1.13
    def autocast_enabled() -> bool:
        """Whether torch.autocast is on for any device type."""
        return torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled()


def autocast_state():
    """None when autocast is off, else what it computes with: per device
    type, whether it is on and its dtype."""
    if not autocast_enabled():
        return None
    if hasattr(torch, "get_autocast_dtype"):  # PyTorch 2.4 and later
        return tuple((d, torch.is_autocast_enabled(d), torch.get_autocast_dtype(d))
                     for d in ("cpu", "cuda"))
    return (("cpu", torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype()),
            ("cuda", torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype()))


# --- TF32 -------------------------------------------------------------------------
#
# PyTorch lets f32 products on CUDA round their inputs to TF32 behind two
# flags: torch.backends.cuda.matmul.allow_tf32 (off by default; what
# torch.set_float32_matmul_precision("high") turns on) for matmul, bmm and
# linear, and torch.backends.cudnn.allow_tf32 (on by default) for
# convolutions. A CUDA compile takes their values (tgc-mark-tf32), and a
# specialization whose f32 products a flag governs serves only calls under
# the value it was compiled with (docs/python.md, "TF32").

_TF32_FLAGS = (("matmuls", "_get_cublas_allow_tf32", "torch.backends.cuda.matmul.allow_tf32"),
               ("convolutions", "_get_cudnn_allow_tf32",
                "torch.backends.cudnn.allow_tf32 (the matmul flag with cuDNN disabled)"))


def tf32_flags() -> Tuple[bool, bool]:
    """(matmuls, convolutions): whether f32 matmuls and convolutions may
    round to TF32 now. With cuDNN disabled (torch.backends.cudnn.enabled)
    eager convolutions are im2col and cuBLAS GEMMs, under the matmul flag.
    A flag PyTorch does not let us read (its legacy getter refuses when the
    newer fp32_precision settings were mixed in) counts as off: f32 is
    never less exact than asked for."""
    out = []
    for _, getter, _ in _TF32_FLAGS:
        try:
            out.append(bool(getattr(torch._C, getter)()))
        except Exception:  # noqa: BLE001 - unreadable: the exact choice
            out.append(False)
    if not torch._C._get_cudnn_enabled():
        out[1] = out[0]
    return out[0], out[1]


def cudnn_convolutions() -> bool:
    """Whether CUDA f32 convolutions run as cuDNN calls, as eager's do:
    torch.backends.cudnn.enabled and cuDNN available, unless TGC_CUDNN=0
    (then im2col and a cuBLASLt GEMM). Not a guard: either way the
    convolution is the same, and its TF32 use follows tf32_flags()."""
    if os.environ.get("TGC_CUDNN", "1") == "0":
        return False
    try:
        return bool(torch._C._get_cudnn_enabled()) and torch.backends.cudnn.is_available()
    except Exception:  # noqa: BLE001 - a build without cuDNN
        return False


def tf32_record(kinds, flags) -> Tuple[Tuple[str, bool], ...]:
    """What a compile governed by the flags of `kinds` ("matmuls",
    "convolutions"; tgc_compiled_code "tf32") under `flags` depends on."""
    return tuple((kind, flag) for (kind, _, _), flag in zip(_TF32_FLAGS, flags) if kind in kinds)


class Tf32Guard:
    """Holds while the TF32 flags a specialization's f32 products were
    compiled under are unchanged (the native path calls check())."""

    def __init__(self, record):
        self.record = tuple(record)
        # (position in tf32_flags(), value, flag name) per flag, once.
        kinds = [k for k, _, _ in _TF32_FLAGS]
        self._checks = tuple((kinds.index(kind), flag, _TF32_FLAGS[kinds.index(kind)][2])
                             for kind, flag in self.record)

    def check(self) -> Optional[str]:
        """None while it holds, else why not (on every native call)."""
        now = tf32_flags()
        for i, flag, name in self._checks:
            if now[i] != flag:
                return f"{name} was {flag} when compiled, {now[i]} now"
        return None


# --- module hooks -----------------------------------------------------------------
#
# A trace runs Module.__call__, hooks included: a forward hook registered
# (or removed) after the compile changes what a call computes. Checking
# every module's hook dicts on every call costs a Python check per module
# (a 50-layer model's call went from 50 to 320 us); instead a version
# counts registrations and removals on the hook dicts traces read (and the
# global ones), through torch.utils.hooks.RemovableHandle, which every
# register_*_hook returns. Specializations record the version; a change
# sends every compiled function's calls to the Python path, which
# recompiles the ones traced before it.

_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
               "_backward_pre_hooks", "_forward_hooks_with_kwargs",
               "_forward_pre_hooks_with_kwargs", "_forward_hooks_always_called")
_watched_hook_dicts: set = set()  # ids
_hooks_version = [0]
_on_hooks_changed: List[Callable[[], None]] = []


def hooks_version() -> int:
    return _hooks_version[0]


def watch_hooks(value: Any) -> None:
    """A module's hook dict a trace read."""
    _watched_hook_dicts.add(id(value))


def on_hooks_changed(callback: Callable[[], None]) -> None:
    _on_hooks_changed.append(callback)


_own_hooks = threading.local()


@contextlib.contextmanager
def own_hooks():
    """Hooks the tracer registers and removes for itself (module scopes):
    they change no compiled call."""
    depth = getattr(_own_hooks, "depth", 0)
    _own_hooks.depth = depth + 1
    try:
        yield
    finally:
        _own_hooks.depth = depth


def remove_own_hooks(handles) -> None:
    with own_hooks():
        for h in handles:
            h.remove()


def _hooks_changed(hooks_dict: Any) -> None:
    if getattr(_own_hooks, "depth", 0):
        return
    if id(hooks_dict) in _watched_hook_dicts:
        _hooks_version[0] += 1
        for callback in list(_on_hooks_changed):
            callback()


def _install_hook_watch() -> None:
    import torch.nn.modules.module as module_py
    import torch.utils.hooks as hooks_py

    for name in dir(module_py):
        if name.startswith("_global_") and name.endswith("hooks"):
            d = getattr(module_py, name)
            if isinstance(d, dict):
                _watched_hook_dicts.add(id(d))
    handle = hooks_py.RemovableHandle
    if getattr(handle, "_tgc_watched", False):
        return
    init, remove = handle.__init__, handle.remove

    def watched_init(self, hooks_dict, *args, **kwargs):
        init(self, hooks_dict, *args, **kwargs)
        _hooks_changed(hooks_dict)  # a hook is about to be stored there

    def watched_remove(self):
        ref = getattr(self, "hooks_dict_ref", None)
        hooks_dict = ref() if ref is not None else None
        remove(self)
        if hooks_dict is not None:
            _hooks_changed(hooks_dict)

    handle.__init__ = watched_init
    handle.remove = watched_remove
    handle._tgc_watched = True


_install_hook_watch()
