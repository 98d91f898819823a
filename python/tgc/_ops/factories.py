"""Factories: full, zeros, ones, empty and their *_like forms, arange,
tensor constants."""

from __future__ import annotations

import numbers
import torch
from typing import Optional

from .._graph import Dyn, Unsupported, Value, format_type, scalar_literal
from .._trace import Tracer
from .core import (
    HANDLERS,
    op,
)
from .shapes import (
    _index_value,
)


def _full_value(tr, real, value, like: Optional[Value] = None) -> Value:
    """`value` in the shape of `real`, or of `like` (whose dynamic sizes are
    passed as index values)."""
    from .._graph import mlir_dtype

    shape = list(like.shape) if like is not None else [int(s) for s in real.shape]
    dynamic = [_index_value(tr, like, i) for i, s in enumerate(shape) if isinstance(s, Dyn)]
    sizes = f" [{', '.join(dynamic)}]" if dynamic else ""
    rt = format_type(real.dtype, shape)
    lit = scalar_literal(value, real.dtype)
    return tr.graph.emit(
        f"tgc.full {lit} : {mlir_dtype(real.dtype)}{sizes} : {rt}", [(real.dtype, shape)], tr.loc()
    )[0]


def _fill_value(real, uninitialized: bool):
    """The one value a factory filled its result with (0 for empty)."""
    if not isinstance(real, torch.Tensor):
        raise Unsupported("a factory that does not return a tensor")
    if uninitialized:
        return 0
    flat = real.reshape(-1)
    if flat.numel() and not bool((flat == flat[0]).all() | (flat != flat).all()):
        raise Unsupported("a factory with distinct values")
    value = flat[0].item() if flat.numel() else 0
    return float("nan") if value != value else value


@op("zeros", "ones", "full", "new_zeros", "new_ones", "new_full")
def _factory(tr, real, *args, **kw):
    return _full_value(tr, real, _fill_value(real, False))


@op("empty", "new_empty")
def _empty(tr, real, *args, **kw):
    return _full_value(tr, real, _fill_value(real, True))


def _like(uninitialized: bool):
    def handler(tr, real, like, *args, **kw):
        # The result has the sizes of `like`, dynamic ones included.
        v = tr.value_of(like)
        return _full_value(tr, real, _fill_value(real, uninitialized), like=v)

    return handler


for _n in ("zeros_like", "ones_like", "full_like"):
    HANDLERS[_n] = _like(False)
HANDLERS["empty_like"] = _like(True)


@op("arange")
def _arange(tr, real, *args, **kw):
    from .._graph import mlir_dtype

    nums = [a for a in args if isinstance(a, numbers.Number)]
    if len(nums) == 1:
        start, step = 0, 1
    elif len(nums) == 2:
        start, step = nums[0], 1
    else:
        start, step = nums[0], nums[2]
    start = kw.get("start", start)
    step = kw.get("step", step)
    n = int(real.shape[0])
    dt = mlir_dtype(real.dtype)
    rt = format_type(real.dtype, [n])
    return tr.graph.emit(
        f"tgc.iota {scalar_literal(start, real.dtype)} : {dt}, {scalar_literal(step, real.dtype)} : {dt} : {rt}",
        [(real.dtype, [n])], tr.loc(),
    )[0]


@op("tensor", "as_tensor", "scalar_tensor")
def _tensor(tr, real, *a, **k):
    if real.numel() > 1024:
        raise Unsupported("a constant tensor with more than 1024 elements")
    return dense_constant(tr, real)


def dense_constant(tr: Tracer, t: torch.Tensor) -> Value:
    """A ``tgc.constant`` holding the values of ``t``."""
    flat = t.reshape(-1).tolist()
    shape = [int(s) for s in t.shape]

    def nest(items, dims):
        if not dims:
            return items[0]
        if len(dims) == 1:
            return "[" + ", ".join(items) + "]"
        step = len(items) // dims[0] if dims[0] else 0
        return "[" + ", ".join(nest(items[i * step : (i + 1) * step], dims[1:]) for i in range(dims[0])) + "]"

    lits = [scalar_literal(x, t.dtype) for x in flat]
    text = nest(lits, shape) if lits else "[]"
    rt = format_type(t.dtype, shape)
    return tr.graph.emit(f"tgc.constant dense<{text}> : {rt}", [(t.dtype, shape)], tr.loc())[0]
