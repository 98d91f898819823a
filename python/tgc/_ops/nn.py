"""Linear algebra and nn operators: matmul family, linear, normalizations,
scaled dot-product attention, convolution, pooling, cholesky."""

from __future__ import annotations

import torch
from typing import Any, List

from .._graph import Unsupported, Value, attr_float, format_type
from .core import (
    as_value,
    broadcast,
    convert,
    derived,
    merge_dims,
    op,
    tval,
)
from .elementwise import (
    _binary_value,
)
from .reductions import (
    _reduction,
)


def _matmul_value(tr, a: Value, b: Value, real) -> Value:
    ra, rb = a.shape, b.shape
    if a.rank == 1 and b.rank == 1:
        shape: List[Any] = []
    elif b.rank == 1:
        shape = ra[:-1]
    elif a.rank == 1:
        shape = rb[:-2] + [rb[-1]]
    else:
        batch = broadcast([ra[:-2], rb[:-2]], list(real.shape[:-2]))
        shape = batch + [ra[-2], rb[-1]]
    rt = format_type(real.dtype, shape)
    return tr.graph.emit(
        f"tgc.matmul {a.name}, {b.name} : {a.type}, {b.type} -> {rt}", [(real.dtype, shape)], tr.loc()
    )[0]


@op("matmul", "mm")
def _matmul(tr, real, x, y):
    return _matmul_value(tr, as_value(tr, x, real.dtype), as_value(tr, y, real.dtype), real)


@op("rmatmul")
def _rmatmul(tr, real, x, y):
    return _matmul(tr, real, y, x)


@op("bmm")
def _bmm(tr, real, x, y):
    a, b = tval(tr, x), tval(tr, y)
    shape = [merge_dims([a.shape[0], b.shape[0]], real.shape[0]), a.shape[1], b.shape[2]]
    rt = format_type(real.dtype, shape)
    return tr.graph.emit(f"tgc.bmm {a.name}, {b.name} : {a.type}, {b.type} -> {rt}", [(real.dtype, shape)], tr.loc())[0]


@op("addmm")
def _addmm(tr, real, bias, x, y, beta=1, alpha=1):
    if beta != 1 or alpha != 1:
        raise Unsupported("addmm with alpha/beta")
    m = _matmul_value(tr, tval(tr, x), tval(tr, y), real)
    return _binary_value(tr, "add", m, tval(tr, bias), real.dtype)


@op("linear")
def _linear(tr, real, x, weight, bias=None):
    a, w = tval(tr, x), tval(tr, weight)
    shape = list(a.shape[:-1]) + [w.shape[0]]
    rt = format_type(real.dtype, shape)
    if bias is not None:
        b = tval(tr, bias)
        return tr.graph.emit(
            f"tgc.linear {a.name}, {w.name}, {b.name} : {a.type}, {w.type}, {b.type} -> {rt}",
            [(real.dtype, shape)], tr.loc(),
        )[0]
    return tr.graph.emit(
        f"tgc.linear {a.name}, {w.name} : {a.type}, {w.type} -> {rt}", [(real.dtype, shape)], tr.loc()
    )[0]


def _norm_op(tr, mnemonic, x, normalized_shape, eps, **operands):
    """A normalization over the last dims with optional affine operands
    (`weight(...)`, `bias(...)` in that order)."""
    v = tval(tr, x)
    parts = ""
    for key, t in operands.items():
        if t is not None:
            o = tval(tr, t)
            parts += f" {key}({o.name} : {o.type})"
    n = len(list(normalized_shape))
    return tr.graph.emit(
        f"{mnemonic} {v.name}{parts} normalized_rank = {n} eps = {attr_float(eps)} : {v.type}",
        [(v.dtype, v.shape)], tr.loc(),
    )[0]


@op("layer_norm", "native_layer_norm")
def _layer_norm(tr, real, x, normalized_shape, weight=None, bias=None, eps=1e-5, *rest):
    if isinstance(real, tuple):
        raise Unsupported("native_layer_norm's statistics")
    return _norm_op(tr, "tgc.layer_norm", x, normalized_shape, eps, weight=weight, bias=bias)


@op("rms_norm")
def _rms_norm(tr, real, x, normalized_shape, weight=None, eps=None):
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    return _norm_op(tr, "tgc.rms_norm", x, normalized_shape, eps, weight=weight)


@op("scaled_dot_product_attention")
def _sdpa(tr, real, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **kw):
    if attn_mask is not None:
        raise Unsupported("scaled_dot_product_attention with attn_mask")
    if dropout_p:
        raise Unsupported("attention dropout")
    if kw.get("enable_gqa"):
        raise Unsupported("attention with enable_gqa")
    qv, kv, vv = tval(tr, q), tval(tr, k), tval(tr, v)
    shape = list(qv.shape[:-1]) + [vv.shape[-1]]
    rt = format_type(qv.dtype, shape)
    extra = " causal" if is_causal else ""
    if scale is not None:
        extra += f" {{scale = {attr_float(scale)} : f64}}"
    return tr.graph.emit(
        f"tgc.scaled_dot_product_attention {qv.name}, {kv.name}, {vv.name}{extra} : {qv.type}, {kv.type}, {vv.type} -> {rt}",
        [(qv.dtype, shape)], tr.loc(),
    )[0]


def _pair(x, n=2) -> List[int]:
    if isinstance(x, int):
        return [x] * n
    x = list(x)
    return x * n if len(x) == 1 else [int(e) for e in x]


@op("convolution", "_convolution")
def _convolution(tr, real, x, weight, bias, stride, padding, dilation, transposed,
                 output_padding, groups, *rest):
    """aten.convolution's argument order (transposed and output_padding
    come before groups: reading them as conv2d's made groups 0)."""
    if transposed:
        raise Unsupported("transposed convolution")
    return _conv2d(tr, real, x, weight, bias, stride, padding, dilation, groups)


@op("conv2d")
def _conv2d(tr, real, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *rest):
    if isinstance(padding, str):
        raise Unsupported(f"conv2d(padding={padding!r})")
    v, w = tval(tr, x), tval(tr, weight)
    if v.rank != 4 or w.rank != 4:
        raise Unsupported("convolutions other than 2-d on NCHW input")
    if not real.dtype.is_floating_point:
        raise Unsupported(f"convolution of {real.dtype} tensors")
    if v.concrete()[1] == 0:
        raise Unsupported("a convolution over 0 input channels")
    shape = [v.shape[0], w.shape[0]] + [
        derived([v.shape[2 + i]], real.shape[2 + i]) for i in range(2)
    ]
    rt = format_type(v.dtype, shape)
    b = ""
    if bias is not None:
        bv = tval(tr, bias)
        b = f" bias({bv.name} : {bv.type})"
    return tr.graph.emit(
        f"tgc.conv2d {v.name}, {w.name}{b} stride {_pair(stride)} padding {_pair(padding)} "
        f"dilation {_pair(dilation)} groups = {int(groups)} : {v.type}, {w.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]


def _pool_shape(v: Value, real) -> List[Any]:
    return list(v.shape[:-2]) + [derived([v.shape[-2 + i]], real.shape[-2 + i]) for i in range(2)]


@op("max_pool2d")
def _max_pool2d(tr, real, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        raise Unsupported("max_pool2d(return_indices=True)")
    v = tval(tr, x)
    stride = kernel_size if stride is None or stride == [] else stride
    shape = _pool_shape(v, real)
    rt = format_type(v.dtype, shape)
    cm = " {ceil_mode}" if ceil_mode else ""
    return tr.graph.emit(
        f"tgc.max_pool2d {v.name} kernel {_pair(kernel_size)} stride {_pair(stride)} padding {_pair(padding)} "
        f"dilation {_pair(dilation)}{cm} : {v.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]


@op("avg_pool2d")
def _avg_pool2d(tr, real, x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    v = tval(tr, x)
    if not v.dtype.is_floating_point:
        # PyTorch sums integers and divides with truncation: in f64 (exact
        # for the sums of any realistic window), converted back.
        if v.dtype == torch.bool:
            raise Unsupported("avg_pool2d of bool tensors")
        f = convert(tr, v, torch.float64)
        pooled = _avg_pool2d_value(tr, f, real, kernel_size, stride, padding, ceil_mode,
                                   count_include_pad, divisor_override)
        return convert(tr, pooled, real.dtype)
    return _avg_pool2d_value(tr, v, real, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, divisor_override)


def _avg_pool2d_value(tr, v, real, kernel_size, stride, padding, ceil_mode,
                      count_include_pad, divisor_override):
    stride = kernel_size if stride is None or stride == [] else stride
    shape = _pool_shape(v, real)
    rt = format_type(v.dtype, shape)
    attrs = []
    if ceil_mode:
        attrs.append("ceil_mode")
    if not count_include_pad:
        attrs.append("count_include_pad = false")
    if divisor_override:
        attrs.append(f"divisor_override = {int(divisor_override)} : i64")
    a = (" {" + ", ".join(attrs) + "}") if attrs else ""
    return tr.graph.emit(
        f"tgc.avg_pool2d {v.name} kernel {_pair(kernel_size)} stride {_pair(stride)} padding {_pair(padding)}{a} : {v.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]


@op("adaptive_avg_pool2d")
def _adaptive_avg_pool2d(tr, real, x, output_size):
    if _pair(output_size) != [1, 1]:
        raise Unsupported("adaptive_avg_pool2d to a size other than 1x1")
    return _reduction("mean")(tr, real, x, [-2, -1], True)


@op("cholesky", "linalg_cholesky")
def _cholesky(tr, real, x, upper=False):
    v = tval(tr, x)
    up = " upper" if upper else ""
    return tr.graph.emit(f"tgc.cholesky {v.name}{up} : {v.type}", [(v.dtype, v.shape)], tr.loc())[0]
