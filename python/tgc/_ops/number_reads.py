"""Numbers PyTorch reads from tensors out of the tracer's sight.

A one-element tensor in a number's place (`x[:n]`, `x.narrow(0, 0, n)`,
`torch.full(size, t)`, `add(x, y, alpha=t)`, `torch.tril(x, t)`) is
converted by PyTorch's C++ argument parser or kernel, never through a
torch function the tracer sees, and a handler would record the traced
value for every call. `value_as_number` finds such calls (ATen's schemas,
and a list of operators whose Tensor overloads read the value too);
tgc._ops.core makes them graph breaks (docs/python.md, "The tracer").
"""

from __future__ import annotations

import functools
from typing import Optional, Tuple

import torch

from .._trace import Tracer


# Operators whose arguments after the tensor are numbers or sizes (a
# one-element tensor there is read as a number by PyTorch), and factories,
# whose arguments all are.
_NUMBER_ARGS = frozenset({
    "narrow", "narrow_copy", "select", "split", "split_with_sizes", "tensor_split",
    "chunk", "view", "reshape", "expand", "repeat", "tile", "new_zeros", "new_ones",
    "new_full", "new_empty", "full_like", "roll", "topk", "kthvalue", "unflatten",
    "diagonal", "movedim", "permute", "transpose", "unsqueeze", "squeeze", "flatten",
    "pad", "constant_pad_nd", "softmax", "log_softmax", "cumsum", "round",
    "repeat_interleave", "interpolate", "dropout",
})
_NUMBER_FACTORIES = frozenset({
    "zeros", "ones", "empty", "full", "arange", "range", "linspace", "logspace", "eye",
    "rand", "randn", "randint", "randperm", "empty_strided", "tensor", "as_tensor",
    "asarray", "scalar_tensor",
})
_KWARG_TYPES = frozenset({"out", "dtype", "device", "layout", "memory_format",
                          "requires_grad", "pin_memory", "generator"})


def value_as_number(tr: Tracer, name: str, args, kwargs) -> bool:
    """Whether the call takes a number or size from the value of a
    one-element tensor that is data (an input's, a parameter's, or computed
    from them; not a constant the function made): `x[:n]`,
    `x.narrow(0, 0, n)`, `torch.full(size, t)`, `add(x, y, alpha=t)`.
    PyTorch converts such a tensor itself, out of the tracer's sight, and a
    handler would record the traced value."""
    base = name[5:] if name.startswith("aten.") else name
    if base.endswith("_") and not base.endswith("__"):
        base = base[:-1]
    factory = base in _NUMBER_FACTORIES
    numbers = factory or base in _NUMBER_ARGS
    indexing = base in ("__getitem__", "__setitem__")
    data_args = args[1:] if base == "new_tensor" else args  # (not new_tensor's self)
    if base in ("tensor", "as_tensor", "asarray", "new_tensor") and any(
            isinstance(a, torch.Tensor) and not _constant(tr, a) for a in _leaves(data_args)):
        return True  # (a constant of data: its values would stay)

    def data(t) -> bool:
        return isinstance(t, torch.Tensor) and t.numel() == 1 and not _constant(tr, t)

    if not (numbers or indexing):
        # ATen's schemas: a one-element tensor where no overload of the
        # operator takes a Tensor (tril's diagonal, leaky_relu's slope,
        # layer_norm's eps, addmm's beta) is read as a number.
        # (Without an ATen operator of that name, only `alpha=`.)
        for i in range(1, len(args)):
            a = args[i]
            if isinstance(a, torch.Tensor) and a.numel() == 1:
                schema = _tensor_arguments(base)
                if schema is not None and i not in schema[0] and not _constant(tr, a):
                    return True
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor) and v.numel() == 1 and k not in _KWARG_TYPES:
                schema = _tensor_arguments(base)
                number = k == "alpha" if schema is None else k not in schema[1]
                if number and not _constant(tr, v):
                    return True
        return False

    def in_slice(a) -> bool:
        return isinstance(a, slice) and any(data(e) for e in (a.start, a.stop, a.step))

    for i, a in enumerate(args):
        items = a if isinstance(a, (list, tuple)) else (a,)
        if indexing and any(in_slice(e) for e in items):
            return True
        if numbers and (i > 0 or factory) and any(data(e) for e in items):
            return True
    for k, v in kwargs.items():
        if k in _KWARG_TYPES:
            continue
        if (numbers or k == "alpha" or (k == "value" and base in ("addcmul", "addcdiv"))) \
                and data(v):
            return True
    return False


def _leaves(x):
    if isinstance(x, (list, tuple)):
        for e in x:
            yield from _leaves(e)
    else:
        yield x


@functools.lru_cache(maxsize=None)
def _tensor_arguments(op: str) -> Optional[Tuple[frozenset, frozenset]]:
    """The positions and names of the arguments that some overload of
    aten::op takes as tensors (None where ATen has no such operator)."""
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{op}")
    except Exception:  # noqa: BLE001 - not an ATen name
        return None
    if not schemas:
        return None
    positions, names = set(), set()
    for schema in schemas:
        i = 0
        for a in schema.arguments:
            tensor = "Tensor" in str(a.type)
            if tensor:
                names.add(a.name)
            if not a.kwarg_only:
                if tensor:
                    positions.add(i)
                i += 1
    return frozenset(positions), frozenset(names)


def _constant(tr: Tracer, t: torch.Tensor) -> bool:
    """Whether `t` is a constant of the graph (a factory's value inside
    the function: the same on every call)."""
    entry = tr.values.get(id(t))
    if entry is None or entry[0] is not t:
        return False  # an input, a parameter, a global: data
    prefix = entry[1].name + " = "
    line = next((l for l in reversed(tr.graph.lines) if l.startswith(prefix)), "")
    return line[len(prefix):].startswith(("tgc.constant", "tgc.full"))
