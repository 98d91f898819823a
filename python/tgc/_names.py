"""The model's names for what the compiled code calls `arg0`, `arg14`.

The compiler and its guards number a function's tensor arguments: the
call's tensors first (in the order `tgc._compile.flatten` finds them), then
the tensors the trace captured (parameters, buffers, globals). Everything a
user reads (guards, recompile reasons, `tgc.explain`, logs, the graph's
argument locations, the HTML report) names them instead as the Python code
does: `x`, `inputs[1]`, `kwargs['mask']`, `self.blocks.1.qkv.weight`,
`G.table` (a global), `scale` (a closure cell).
"""

from __future__ import annotations

import dataclasses
import dis
import inspect
import re
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch


def _signature_names(fn: Callable, nargs: int, kwargs: Dict[str, Any]) -> List[str]:
    """The parameter name of each positional argument (`*args` ones as
    `args[k]`)."""
    given = getattr(fn, "_tgc_input_names", None)  # an FX graph's (tgc.fx)
    if given is not None:
        return [given[i] if i < len(given) else f"args[{i}]" for i in range(nargs)]
    target = fn.forward if isinstance(fn, torch.nn.Module) else fn
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        params = []
    out: List[str] = []
    for i in range(nargs):
        if i < len(params) and params[i].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                  inspect.Parameter.POSITIONAL_OR_KEYWORD):
            out.append(params[i].name)
            continue
        star = next((p for p in params if p.kind == inspect.Parameter.VAR_POSITIONAL), None)
        if star is not None:
            first = sum(p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                   inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params)
            out.append(f"{star.name}[{i - first}]")
        else:
            out.append(f"args[{i}]")
    return out


def input_names(fn: Callable, args: Sequence[Any], kwargs: Dict[str, Any]) -> List[str]:
    """A name per tensor of the call, in `tgc._compile.flatten`'s order."""
    names: List[str] = []

    def walk(o, path: str) -> None:
        if isinstance(o, torch.Tensor):
            names.append(path)
        elif isinstance(o, tuple) and hasattr(type(o), "_fields"):
            for f, e in zip(type(o)._fields, o):
                walk(e, f"{path}.{f}")
        elif isinstance(o, (tuple, list)):
            for k, e in enumerate(o):
                walk(e, f"{path}[{k}]")
        elif isinstance(o, dict):
            for k, v in o.items():
                walk(v, f"{path}[{k!r}]")
        elif dataclasses.is_dataclass(o) and not isinstance(o, type):
            from ._trees import dataclass_items  # (a cycle at import time)

            _, first, rest = dataclass_items(o)
            for n, v in first + rest:
                walk(v, f"{path}.{n}")

    for name, a in zip(_signature_names(fn, len(args), kwargs), args):
        walk(a, name)
    for k, v in kwargs.items():
        walk(v, k)
    return names


def source_tensor_names(fn: Callable) -> Dict[int, str]:
    """id(tensor) -> name, for the tensors the function's own code reaches
    through its globals and closure cells: a tensor by its variable's name,
    a module's parameters and buffers by the module's name and path."""
    target = type(fn).forward if isinstance(fn, torch.nn.Module) else fn
    func = getattr(target, "__func__", target)
    code = getattr(func, "__code__", None)
    if code is None:
        return {}
    found: Dict[str, Any] = {}
    globs = getattr(func, "__globals__", {})
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval in globs:
            found.setdefault(str(ins.argval), globs[ins.argval])
    for name, cell in zip(code.co_freevars, getattr(func, "__closure__", None) or ()):
        try:
            found.setdefault(name, cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    out: Dict[int, str] = {}
    for name, value in found.items():
        if isinstance(value, torch.Tensor):
            out.setdefault(id(value), name)
        elif isinstance(value, torch.nn.Module):
            for prefix, m in value.named_modules():
                for kind in ("_parameters", "_buffers"):
                    for n, t in m.__dict__.get(kind, {}).items():
                        if t is not None:
                            path = ".".join(p for p in (name, prefix, n) if p)
                            out.setdefault(id(t), path)
    return out


_ARG_DIM = re.compile(r"\barg ?(\d+)(?:_dim| dim )(\d+)\b")
_ARG = re.compile(r"\barg ?(\d+)\b")


class ArgNames:
    """The names of a compiled function's arguments, and which of them are
    state (parameters and buffers: they change only with the module)."""

    def __init__(self, names: Sequence[Optional[str]], state: Sequence[bool] = ()):
        self.names = [n if n else f"arg{i}" for i, n in enumerate(names)]
        self.state = list(state) + [False] * (len(self.names) - len(state))

    def __len__(self) -> int:
        return len(self.names)

    def name(self, i: int) -> str:
        return self.names[i] if 0 <= i < len(self.names) else f"arg{i}"

    def rename(self, text: str) -> str:
        """`text` with `arg3`, `arg 3`, `arg3_dim1` and `arg 3 dim 1` written
        with the model's names (`x`, `x.size(1)`)."""
        if not self.names:
            return text
        text = _ARG_DIM.sub(
            lambda m: f"{self.name(int(m.group(1)))}.size({m.group(2)})"
            if int(m.group(1)) < len(self.names) else m.group(0), text)
        return _ARG.sub(
            lambda m: self.name(int(m.group(1)))
            if int(m.group(1)) < len(self.names) else m.group(0), text)

    def on_state_only(self, text: str) -> bool:
        """Whether a guard's text refers only to parameters and buffers."""
        found = [int(m.group(1)) for m in _ARG.finditer(text)]
        found += [int(m.group(1)) for m in _ARG_DIM.finditer(text)]
        return bool(found) and all(i < len(self.state) and self.state[i] for i in found)


def mlir_string(text: str) -> str:
    """`text` as an MLIR string literal's contents."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
