"""What a call writes: the operands an operator updates in place (its
schema's written arguments, in-place spellings, out=, batch norm's running
statistics), and whether such an operand is memory of the caller's that
the trace must not write. Shared by the tracer (tgc._ops.core), graph
breaks (tgc._breaks), approximate traces and the FX backend."""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Tuple

import torch

from .._trace import Tracer, storage_ptr


@functools.lru_cache(maxsize=None)
def written_args(op: str) -> Tuple[Tuple[int, ...], Tuple[str, ...]]:
    """The positions and names of the arguments ATen's schemas of `op`
    write (any overload: `self` of add_, every list of _foreach_add_ and
    _fused_adam_), out= aside; empty when no schema says."""
    parts = op.split(".")
    base = parts[1] if parts[0] == "aten" and len(parts) > 1 else parts[-1]
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{base}")
    except Exception:  # noqa: BLE001 - not an ATen operator
        return (), ()
    positions, names = set(), set()
    for schema in schemas:
        for i, a in enumerate(schema.arguments):
            if a.alias_info is not None and a.alias_info.is_write and a.name != "out":
                names.add(a.name)
                if not a.kwarg_only:
                    positions.add(i)
    return tuple(sorted(positions)), tuple(sorted(names))


_INPLACE_DUNDERS = {
    f"__i{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and",
                          "or", "xor", "lshift", "rshift", "matmul")} | {"__setitem__"}


def is_inplace(op: str) -> bool:
    """Whether `op` names an in-place form: add_, _foreach_add_, the
    in-place dunders (also as operator.iadd, operator.setitem)."""
    base = op.split(".")[-1]
    return base in _INPLACE_DUNDERS or f"__{base}__" in _INPLACE_DUNDERS or (
        base.endswith("_") and (not base.startswith("_") or base.startswith("_foreach_")))


def written_operands(name: str, args, kwargs,
                     is_operand: Callable[[Any], bool] = lambda a: isinstance(a, torch.Tensor)
                     ) -> List[Any]:
    """The operands a call of `name` writes: its schema's written arguments
    (each a tensor or a list of them), the first argument of an in-place
    form or of a call with inplace=True (F.relu, F.dropout, ...), out=, and
    the running statistics batch and instance norm update when they use
    the batch's. `is_operand` says what an operand is (a tensor when
    tracing; an FX node of the graph for the backend)."""
    def within(a) -> List[Any]:
        if isinstance(a, (list, tuple)):
            return [e for e in a if is_operand(e)]
        return [a] if is_operand(a) else []

    out: List[Any] = []
    positions, names = written_args(name)
    for i in positions:
        if i < len(args):
            out += within(args[i])
    for k in names:
        out += within(kwargs.get(k))
    if not out and args and (is_inplace(name) or kwargs.get("inplace") is True):
        out += within(args[0])
    out += within(kwargs.get("out"))
    base = name.split(".")[-1]
    if base in ("batch_norm", "instance_norm"):
        # torch.batch_norm / instance_norm(x, w, b, mean, var, training, ...);
        # F.batch_norm(x, mean, var, w, b, training, ...) (F.instance_norm
        # reaches torch.instance_norm).
        torch_form = len(args) >= 9 or base == "instance_norm"
        at = (3, 4, 5) if torch_form else (1, 2, 5)

        def arg(i, key):
            return args[i] if i < len(args) else kwargs.get(key)
        training = arg(at[2], "use_input_stats" if base == "instance_norm" else "training")
        if training:
            out += within(arg(at[0], "running_mean")) + within(arg(at[1], "running_var"))
    return out


def _from_outside(tr: Tracer, t: torch.Tensor) -> bool:
    """Whether `t` is memory of the caller's that the trace must not write:
    a captured tensor's (parameter, buffer, global), or a tensor the trace
    has never seen, nor its memory. The inputs are the trace's copies."""
    if any(x is t for x in tr.inputs):
        return False
    ptr = storage_ptr(t)
    if (ptr and ptr in tr.outside_storages) or any(c is t for c in tr.captured):
        return True
    entry = tr.values.get(id(t))
    if (entry is not None and entry[0] is t) or tr.poisoned.get(id(t)) is t:
        return False
    eager = tr.eager.get(id(t))
    if eager is not None and eager[0] is t:
        return False
    return not tr.sharing_memory(ptr)
