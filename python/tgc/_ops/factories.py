"""Factories: full, zeros, ones, empty and their *_like forms, arange,
tensor constants."""

from __future__ import annotations

import numbers
import torch
from typing import Optional

from .._graph import Dyn, Unsupported, Value, format_type, scalar_literal
from .._trace import Tracer
from .._sym import SymInt
from .core import (
    HANDLERS,
    op,
    specialize_syms,
)
from .shapes import (
    _index_value,
)


def _full_value(tr, real, value, like: Optional[Value] = None, shape=None) -> Value:
    """`value` in the shape of `real`, of `like`, or `shape` (graph sizes;
    dynamic ones are passed as index values)."""
    if like is not None:
        shape = list(like.shape)
        dynamic = [_index_value(tr, like, i) for i, s in enumerate(shape) if isinstance(s, Dyn)]
    else:
        shape = [int(s) for s in real.shape] if shape is None else list(shape)
        dynamic = [tr.index_of(s) for s in shape if isinstance(s, Dyn)]
    sizes = f" [{', '.join(dynamic)}]" if dynamic else ""
    rt = format_type(real.dtype, shape)
    from .._graph import typed_literal

    return tr.graph.emit(
        f"tgc.full {typed_literal(value, real.dtype)}{sizes} : {rt}", [(real.dtype, shape)],
        tr.loc()
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


def _factory_shape(tr, args, kw, method: bool, fill: bool):
    """The sizes of a factory call as graph sizes (SymInts stay symbolic)
    and its guarded fill value argument, if any."""
    from .shapes import _sizes_arg

    args = list(args[1:] if method else args)
    value = None
    if fill:
        value = kw.pop("fill_value", None) if "fill_value" in kw else args.pop()
        specialize_syms(tr, value, "fill value")
    sizes = (kw["size"],) if "size" in kw else tuple(args)
    return _sizes_arg(tr, sizes)


def _factory_handler(method: bool, fill: bool, uninitialized: bool):
    def handler(tr, real, *args, **kw):
        shape = _factory_shape(tr, args, dict(kw), method, fill)
        return _full_value(tr, real, _fill_value(real, uninitialized), shape=shape)

    return handler


for _names, _method, _fill, _empty in (
        (("zeros", "ones"), False, False, False), (("full",), False, True, False),
        (("empty",), False, False, True), (("new_zeros", "new_ones"), True, False, False),
        (("new_full",), True, True, False), (("new_empty",), True, False, True)):
    op(*_names, symbolic=True)(_factory_handler(_method, _fill, _empty))


def _like(uninitialized: bool):
    def handler(tr, real, like, *args, **kw):
        # The result has the sizes of `like`, dynamic ones included.
        v = tr.value_of(like)
        return _full_value(tr, real, _fill_value(real, uninitialized), like=v)

    return handler


for _n in ("zeros_like", "ones_like", "full_like"):
    HANDLERS[_n] = _like(False)
HANDLERS["empty_like"] = _like(True)


@op("arange", symbolic=True)
def _arange(tr, real, *args, **kw):
    from .._graph import mlir_dtype

    if any(isinstance(a, torch.Tensor) for a in list(args) + list(kw.values())):
        # (its length would come from tensor data: a graph break)
        raise Unsupported("torch.arange with tensor bounds (a size from tensor data)")
    nums = [a for a in args if isinstance(a, (numbers.Number, SymInt))]
    names = ("end",) if len(nums) == 1 else ("start", "end", "step")[:len(nums)]
    bounds = dict(zip(names, nums))
    bounds.update({k: kw[k] for k in ("start", "end", "step") if k in kw})
    start, end, step = bounds.get("start", 0), bounds.get("end"), bounds.get("step", 1)
    if any(isinstance(b, SymInt) for b in (start, end, step)):
        out = _symbolic_arange(tr, real, start, end, step)
        if out is not None:
            return out
        specialize_syms(tr, (start, end, step), "arange bounds")
        nums = [a.hint if isinstance(a, SymInt) else a for a in nums]
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


def _symbolic_arange(tr, real, start, end, step) -> Optional[Value]:
    """arange with SymInt bounds and an integer dtype: iota of a symbolic
    length from a static start, or the last n of 0 .. end-1 when only the
    length n is static (positions start .. start+n of a growing cache)."""
    from .shapes import _TO_END, _iota

    if isinstance(step, SymInt) or step != 1 or real.dtype.is_floating_point or \
            not isinstance(end, SymInt) and not isinstance(end, int):
        return None
    if not (end > start):  # a guard; an empty arange keeps its number
        return None
    length = end - start
    if isinstance(start, int):
        v = _iota(tr, start, tr.dyn_for(length), real.dtype)
        return v
    if isinstance(length, int):
        full = _iota(tr, 0, tr.dyn_for(end), real.dtype)
        rt = format_type(real.dtype, [length])
        return tr.graph.emit(
            f"tgc.slice {full.name} dim = 0 start = {-length} end = {_TO_END} step = 1 : "
            f"{full.type} -> {rt}", [(real.dtype, [length])], tr.loc())[0]
    return None


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
