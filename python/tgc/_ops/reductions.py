"""Reductions: sum, mean, prod, amax/amin, var/std, norms, argmax/argmin,
max/min with indices, topk, softmax and log_softmax."""

from __future__ import annotations

import math
import torch
from typing import Any, List, Sequence

from .._graph import Unsupported, Value, attr_float, format_type
from .core import (
    HANDLERS,
    convert,
    norm_dim,
    op,
    product_expr,
    tval,
)
from .elementwise import (
    _binary,
)
from .shapes import (
    _known,
    _reshape_to,
)


def _dims(v: Value, dim) -> List[int]:
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(v.rank))
    if isinstance(dim, int):
        dim = [dim]
    return sorted({norm_dim(d, v.rank) for d in dim})


def _reduce_shape(v: Value, dims: List[int], keepdim: bool) -> List[Any]:
    out = []
    for i, s in enumerate(v.shape):
        if i in dims:
            if keepdim:
                out.append(1)
        else:
            out.append(s)
    return out


def sum_value(tr, v: Value, dims: Sequence[int], dtype) -> Value:
    """`v` summed over `dims` (no keepdim) in `dtype`: the sum helpers of
    the composite operators and of core.sym_tensor."""
    v = convert(tr, v, dtype)
    dims = list(dims)
    shape = _reduce_shape(v, dims, False)
    rt = format_type(dtype, shape)
    return tr.graph.emit(f"tgc.sum {v.name} dims {dims} : {v.type} -> {rt}",
                         [(dtype, shape)], tr.loc())[0]


def _reduction(mnemonic: str):
    def handler(tr, real, x, dim=None, keepdim=False, *rest, **kw):
        dim = kw.get("dim", dim)
        keepdim = kw.get("keepdim", keepdim)
        if isinstance(dim, torch.dtype):  # sum(x, dtype)
            dim = None
        v = tval(tr, x)
        v = convert(tr, v, real.dtype)
        if v.rank == 0:
            return v
        # amax/amin of bools ("any"/"all"): over i8, then back to bool.
        dtype = torch.int8 if real.dtype == torch.bool else real.dtype
        v = convert(tr, v, dtype)
        dims = _dims(v, dim)
        shape = _reduce_shape(v, dims, keepdim)
        rt = format_type(dtype, shape)
        kd = " keepdim" if keepdim else ""
        r = tr.graph.emit(
            f"tgc.{mnemonic} {v.name} dims {list(dims)}{kd} : {v.type} -> {rt}",
            [(dtype, shape)], tr.loc(),
        )[0]
        return convert(tr, r, real.dtype)

    return handler


for _n in ("sum", "mean", "amax", "amin"):
    HANDLERS[_n] = _reduction(_n)
HANDLERS["aten.sum"] = _reduction("sum")


def _var_handler(sqrt: bool):
    def handler(tr, real, x, dim=None, unbiased=None, keepdim=False, *rest, **kw):
        correction = kw.get("correction", None)
        if isinstance(dim, bool):  # var(x, unbiased)
            unbiased, dim = dim, None
        dim = kw.get("dim", dim)
        keepdim = kw.get("keepdim", keepdim)
        unbiased = kw.get("unbiased", unbiased)
        if correction is None:
            correction = 0 if unbiased is False else 1
        v = convert(tr, tval(tr, x), real.dtype)
        dims = _dims(v, dim)
        shape = _reduce_shape(v, dims, keepdim)
        rt = format_type(real.dtype, shape)
        kd = " keepdim" if keepdim else ""
        r = tr.graph.emit(
            f"tgc.var {v.name} dims {dims}{kd} {{correction = {int(correction)} : i64}} : {v.type} -> {rt}",
            [(real.dtype, shape)], tr.loc(),
        )[0]
        if sqrt:
            r = tr.graph.emit(f"tgc.sqrt {r.name} : {r.type}", [(r.dtype, r.shape)], tr.loc())[0]
        return r

    return handler


HANDLERS["var"] = _var_handler(False)
HANDLERS["std"] = _var_handler(True)


@op("norm", "linalg_norm", "linalg_vector_norm", "vector_norm")
def _norm(tr, real, x, p=2, dim=None, keepdim=False, *rest, **kw):
    p = kw.get("ord", kw.get("p", p))
    dim = kw.get("dim", dim)
    keepdim = kw.get("keepdim", keepdim)
    if isinstance(p, str) or p is None:
        if p not in (None, "fro"):
            raise Unsupported(f"norm with p={p!r}")
        p = 2
    v = convert(tr, tval(tr, x), real.dtype)
    if dim is None and v.rank == 2 and kw.get("ord") is not None:
        raise Unsupported("matrix norms")
    dims = _dims(v, dim)
    shape = _reduce_shape(v, dims, keepdim)
    rt = format_type(real.dtype, shape)
    kd = " keepdim" if keepdim else ""
    return tr.graph.emit(
        f"tgc.norm {v.name} dims {dims}{kd} {{p = {attr_float(p)} : f64}} : {v.type} -> {rt}",
        [(real.dtype, shape)], tr.loc(),
    )[0]


def _arg_reduction(mnemonic: str):
    def handler(tr, real, x, dim=None, keepdim=False):
        v = tval(tr, x)
        whole = dim is None
        if whole:
            n = math.prod(v.concrete())
            flat = _reshape_to(tr, v, [_known(tr, v.shape, n, product_expr(v.shape))])
            v, dim, keepdim = flat, 0, False
        d = norm_dim(dim, v.rank)
        shape = _reduce_shape(v, [d], keepdim)
        rt = format_type(torch.int64, shape)
        kd = " keepdim" if keepdim else ""
        r = tr.graph.emit(
            f"tgc.{mnemonic} {v.name} dim {d}{kd} : {v.type} -> {rt}",
            [(torch.int64, shape)], tr.loc(),
        )[0]
        # keepdim without a dim: PyTorch 2.x keeps every dim as 1 (1.13
        # ignores keepdim); the result has eager's shape.
        if whole and isinstance(real, torch.Tensor) and real.dim() > 0:
            r = _reshape_to(tr, r, [1] * real.dim())
        return r

    return handler


HANDLERS["argmax"] = _arg_reduction("argmax")
HANDLERS["argmin"] = _arg_reduction("argmin")


def _max_min(mnemonic: str, full: str, pair: str):
    def handler(tr, real, x, dim=None, keepdim=False, **kw):
        dim = kw.get("dim", dim)
        if isinstance(dim, torch.Tensor):
            return _binary(pair)(tr, real, x, dim)
        v = tval(tr, x)
        if dim is None:
            return _reduction(full)(tr, real, x)
        d = norm_dim(dim, v.rank)
        shape = _reduce_shape(v, [d], keepdim)
        kd = " keepdim" if keepdim else ""
        # Bools compare as 0 and 1 (tgc.max takes numbers).
        dtype = torch.int8 if v.dtype == torch.bool else v.dtype
        v = convert(tr, v, dtype)
        vt = format_type(dtype, shape)
        it = format_type(torch.int64, shape)
        values, indices = tr.graph.emit(
            f"tgc.{mnemonic} {v.name} dim {d}{kd} : {v.type} -> {vt}, {it}",
            [(dtype, shape), (torch.int64, shape)], tr.loc(),
        )
        return convert(tr, values, real[0].dtype), indices

    return handler


HANDLERS["max"] = _max_min("max", "amax", "maximum")
HANDLERS["min"] = _max_min("min", "amin", "minimum")


@op("topk")
def _topk(tr, real, x, k, dim=-1, largest=True, sorted=True):
    if not largest:
        raise Unsupported("topk(largest=False)")
    v = tval(tr, x)
    d = norm_dim(dim, v.rank)
    shape = list(v.shape)
    shape[d] = int(k)
    vt, it = format_type(v.dtype, shape), format_type(torch.int64, shape)
    return tuple(tr.graph.emit(
        f"tgc.topk {v.name} k = {int(k)} dim = {d} : {v.type} -> {vt}, {it}",
        [(v.dtype, shape), (torch.int64, shape)], tr.loc(),
    ))


def _softmax_handler(mnemonic: str):
    def handler(tr, real, x, dim=None, *rest, **kw):
        dim = kw.get("dim", dim)
        if dim is None:
            raise Unsupported(f"{mnemonic} without dim")
        v = convert(tr, tval(tr, x), real.dtype)
        if v.rank == 0:
            raise Unsupported(f"{mnemonic} of a 0-d tensor")
        d = norm_dim(dim, v.rank)
        return tr.graph.emit(f"tgc.{mnemonic} {v.name} dim = {d} : {v.type}", [(v.dtype, v.shape)], tr.loc())[0]

    return handler


HANDLERS["softmax"] = HANDLERS["_softmax"] = _softmax_handler("softmax")
HANDLERS["log_softmax"] = HANDLERS["_log_softmax"] = _softmax_handler("log_softmax")
