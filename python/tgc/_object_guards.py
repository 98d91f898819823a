"""Guards on the objects a trace went through, besides the Python numbers
tgc._state already guards: what makes a compiled specialization stale when
the model changes after it was traced.

* **Submodules** a trace read (`self.block`, through `Module.__getattr__`)
  are guarded by identity: a replaced submodule (`m.act = nn.Tanh()`,
  `seq[0] = ...`) recompiles instead of running the old one's code with its
  old attributes. A parameter or buffer that was None when read
  (`self.bias` of `Linear(bias=False)`) is guarded to stay None.
* **Module containers** read or compiled (`nn.ModuleList`, `nn.Sequential`,
  `nn.ModuleDict`, ...), and containers inside them: each entry by identity
  and their number, so an `append` or a replaced entry recompiles.
* **Tensors held as plain attributes** of a module or in a global or
  closure of the compiled function (not parameters or buffers, which are
  found again by name): by identity; one the graph takes and that the
  trace read from one dict entry is found again there instead
  (:func:`by_source`): `m.offset = torch.ones(1)` rebound after the compile
  is another input of the same graph.
* **Functions held as instance attributes** (`m.forward = ...` set on the
  instance, a callable stored on a module) by identity.
* **Plain Python objects** a trace read from a module attribute, or that
  are globals or the `self` of a compiled bound method (a config object):
  their constant attributes (numbers, strings, ...; up to 256 per object),
  each a guard the native path checks without Python.
* **Globals of the functions the model's code ran** (helpers and submodule
  `forward`s in the model's files, found on the Python stack of each traced
  operator): their constant globals read (`SCALE = 2.0` used by a helper).

Each guard is a tgc._state.ValueGuard; identity guards and dict entries
carry their (dict, key) source, so the native call path checks them in C.
"""

from __future__ import annotations

import logging
import types
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import torch

from . import _state

_MAX_OBJECT_ATTRIBUTES = 256

# Containers whose entries a forward iterates (their `_modules` order and
# number are part of the graph).
CONTAINERS = (torch.nn.ModuleList, torch.nn.Sequential, torch.nn.ModuleDict,
               torch.nn.ParameterList, torch.nn.ParameterDict)


def _dict_of(module: torch.nn.Module) -> dict:
    """A module's __dict__, read past the trace's attribute recorder."""
    return object.__getattribute__(module, "__dict__")


def short(value: Any) -> str:
    """A value as a guard message shows it (a module's repr is pages)."""
    if isinstance(value, torch.Tensor):
        return f"a tensor {tuple(value.shape)} {str(value.dtype).replace('torch.', '')}"
    if isinstance(value, torch.nn.Module):
        return f"a {type(value).__name__} module"
    if value is None or _state.is_constant(value):
        return repr(value)
    if value is _state._MISSING:
        return "<missing>"
    return f"a {type(value).__name__}"


def identity(what: str, d: dict, key: str, value: Any, where: str) -> _state.ValueGuard:
    """`d[key]` must still be `value`, the same object."""
    return _state.ValueGuard(what, lambda d=d, key=key: d.get(key, _state._MISSING), value,
                             where, (d, key), identity=True)


def plain_object(value: Any) -> bool:
    """An object whose attributes a trace may read as configuration: not a
    module, tensor, function, class, Python module or logger."""
    return (hasattr(value, "__dict__") and type(value).__module__ != "builtins"
            and not isinstance(value, (logging.Logger, logging.LoggerAdapter))
            and not isinstance(value, (torch.nn.Module, torch.Tensor, type, types.ModuleType,
                                       types.FunctionType, types.MethodType,
                                       types.BuiltinFunctionType))
            and not callable(value))


def object_attributes(what: str, obj: Any, where: str) -> List[_state.ValueGuard]:
    """The constant attributes of a plain object, each a guard."""
    d = getattr(obj, "__dict__", None)
    if not isinstance(d, dict):
        return []
    out = []
    for key, value in list(d.items())[:_MAX_OBJECT_ATTRIBUTES]:
        if isinstance(key, str) and not key.startswith("__") and _state.is_constant(value):
            out.append(_state.ValueGuard(f"{what}.{key}", lambda d=d, key=key: d.get(key, _state._MISSING),
                                         value, where, (d, key)))
    return out


def container(what: str, module: torch.nn.Module, where: str,
              seen: Optional[Set[int]] = None) -> List[_state.ValueGuard]:
    """A container module's entries by identity, and their number; entries
    that are containers too, the same way (a Sequential in a Sequential is
    reached by iterating, never through __getattr__)."""
    seen = set() if seen is None else seen
    if id(module) in seen:
        return []
    seen.add(id(module))
    out = []
    for kind in ("_modules", "_parameters"):
        d = _dict_of(module).get(kind)
        if not d:
            continue
        if kind == "_modules":
            out += [identity(f"{what}[{k!r}]", d, k, v, where) for k, v in d.items()]
            out += [g for k, v in d.items() if isinstance(v, CONTAINERS)
                    for g in container(f"{what}[{k!r}]", v, where, seen)]
        out.append(_state.ValueGuard(f"len({what}.{kind})", lambda d=d: len(d), len(d), where,
                                     size_of=d))
    # A container may make its entries' dict anew (ModuleList.__delitem__).
    out += [identity(f"{what}.{kind}", _dict_of(module), kind, _dict_of(module)[kind], where)
            for kind in ("_modules", "_parameters") if kind in _dict_of(module)]
    return out


def member(what: str, module: torch.nn.Module, name: str, value: Any,
           where: str) -> List[_state.ValueGuard]:
    """Guards for `module.name` found by Module.__getattr__ (a submodule, a
    parameter or a buffer)."""
    for kind in ("_modules", "_parameters", "_buffers"):
        d = _dict_of(module).get(kind)
        if d is None or name not in d or d[name] is not value:
            continue
        if value is None:
            return [_state.ValueGuard(f"{what}.{name}", lambda d=d, name=name: d.get(name, _state._MISSING),
                                      None, where, (d, name))]
        if isinstance(value, torch.nn.Module):
            out = [identity(f"{what}.{name}", d, name, value, where)]
            if isinstance(value, CONTAINERS):
                out += container(f"{what}.{name}", value, where)
            return out
        return []  # a tensor: found again by its name (tgc._state.CapturedTensors)
    return []


# --- helpers' globals ---------------------------------------------------------------


class FrameNotes:
    """The model's functions that ran traced operators: (code, globals) of
    every frame outside torch and tgc on the stack of each operator."""

    def __init__(self, internal: Callable[[str], bool], boundary):
        self.internal = internal
        self.boundary = boundary  # the trace's own frame: its callers are not the model
        self.functions: Dict[types.CodeType, dict] = {}  # code -> its globals
        self._skipped: Set[types.CodeType] = set()  # torch's and tgc's code seen

    def note(self, frame) -> None:
        # The whole stack each time: a frame's id is reused by the next
        # call of the same function once it returns, so no walked frame can
        # be taken for one still running.
        f = frame
        functions, skipped = self.functions, self._skipped
        boundary = self.boundary
        while f is not None and f is not boundary:
            code = f.f_code
            if code not in functions and code not in skipped:
                if self.internal(code.co_filename):
                    skipped.add(code)
                else:
                    functions[code] = f.f_globals
            f = f.f_back

    def guards(self, skip: Optional[types.CodeType]) -> List[_state.ValueGuard]:
        out: List[_state.ValueGuard] = []
        done: Set[Tuple[int, str]] = set()
        for code, globs in self.functions.items():
            if code is skip:
                continue
            where = f"{code.co_filename}:{code.co_firstlineno}"
            # co_names holds the globals the code loads (and attribute
            # names: a global that shares one is guarded too).
            for name in code.co_names:
                if (id(globs), name) in done or name not in globs:
                    continue
                value = globs[name]
                if _state.is_constant(value):
                    done.add((id(globs), name))
                    out.append(_state.ValueGuard(f"global {name} of {code.co_name}",
                                                 lambda g=globs, n=name: g.get(n, _state._MISSING),
                                                 value, where, (globs, name)))
                elif isinstance(value, torch.Tensor):
                    done.add((id(globs), name))
                    out.append(identity(f"global {name} of {code.co_name}", globs, name, value, where))
        return out


def by_source(result) -> None:
    """Tensors from outside that a trace read from a dict entry (a global,
    a module's plain attribute) and passes to the graph: found again there
    on a call that rebinds them (CapturedTensors.sources), as parameters are
    by name, instead of an identity guard that recompiled at every
    rebinding (torch.compile passes them as inputs too)."""
    captured = list(result.captured)
    origs = list(result.captured_origs) + [None] * (len(captured) - len(result.captured_origs))
    names = list(result.captured_names) + [None] * (len(captured) - len(result.captured_names))
    held = [o if o is not None else c for c, o in zip(captured, origs)]
    # Every identity guard on each captured tensor: only a tensor read from
    # one entry, by that entry itself, is found there again. One read from
    # two (self.w and a global W of the same tensor) keeps its guards: a
    # rebinding of either recompiles.
    on: Dict[int, List[_state.ValueGuard]] = {}
    for g in result.value_guards:
        if g.identity and isinstance(g.value, torch.Tensor):
            at = next((i for i, t in enumerate(held) if t is g.value and names[i] is None), None)
            if at is not None:
                on.setdefault(at, []).append(g)
    sources: List[Optional[Tuple[dict, str]]] = [None] * len(captured)
    moved = set()
    for at, guards in on.items():
        entries = {(id(g.source[0]), g.source[1]) for g in guards if g.source is not None}
        if len(entries) == 1 and all(g.resolvable for g in guards):
            sources[at] = guards[0].source
            moved.update(id(g) for g in guards)
    result.value_guards = [g for g in result.value_guards if id(g) not in moved]
    result.captured_sources = sources
