"""Operators written with other ``tgc`` ops (no IR of their own): masks
from iotas (``tril``, ``triu``), fills and copies, ``var_mean``,
``baddbmm``, constant factories (``eye``, ``linspace``), adaptive average
pooling (to any size: one window mean per output where the size does not
divide), nearest, linear and cubic upsampling and
reflection/replication padding as gathers with constant indices (and
weights) computed as PyTorch computes them, and the assertions of exported
graphs."""

from __future__ import annotations

import torch
from typing import List

from .._graph import Dyn, Unsupported, Value, format_type
from .core import (
    HANDLERS,
    PASSTHROUGH,
    as_value,
    constant,
    convert,
    norm_dim,
    op,
    tval,
)
from .elementwise import _binary_value, _where_values
from .factories import _full_value, dense_constant

# Checks in exported graphs (their conditions hold for the traced call and
# the guards keep them holding): no-ops for a value-semantic graph.
PASSTHROUGH.update({"aten._assert_tensor_metadata", "_assert_tensor_metadata",
                    "aten._assert_scalar", "_assert_scalar", "aten._assert_async",
                    "aten.sym_constrain_range_for_size"})


def _dim_size(tr, v: Value, d: int):
    """Size `d` of `v` as a graph size usable as an operand (an int, or a
    Dyn with an expression)."""
    return tr.dyn_for(tr.sym_size(v, d))


def _iota_along(tr, v: Value, d: int) -> Value:
    from .shapes import _iota

    return _iota(tr, 0, _dim_size(tr, v, d))


# --- masks -------------------------------------------------------------------------


def _triangle(lower: bool):
    def handler(tr, real, x, diagonal=0):
        from .shapes import _unsqueeze

        v = tval(tr, x)
        if v.rank < 2:
            raise Unsupported("tril/triu of a tensor of rank < 2")
        rows = _unsqueeze(tr, _iota_along(tr, v, v.rank - 2), 1)  # [R, 1]
        cols = _iota_along(tr, v, v.rank - 1)  # [C]
        diff = _binary_value(tr, "sub", cols, rows, torch.int64)  # col - row
        k = constant(tr, int(diagonal), torch.int64)
        keep = _binary_value(tr, "cmp le," if lower else "cmp ge,", diff, k, torch.bool)
        return _where_values(tr, keep, v, constant(tr, 0, v.dtype), v.dtype)

    return handler


HANDLERS["tril"] = _triangle(True)
HANDLERS["triu"] = _triangle(False)


# --- fills and copies ------------------------------------------------------------


@op("fill")
def _fill(tr, real, x, value):
    v = tval(tr, x)
    if not isinstance(value, torch.Tensor):
        return _full_value(tr, real, value, like=v)
    return _broadcast_into(tr, real, v, convert(tr, tval(tr, value), v.dtype))


def _broadcast_into(tr, real, v: Value, s: Value) -> Value:
    """`s` (of v's dtype) broadcast to v's shape: -0.0 + s is s for every
    value (-0.0 and NaN included); False | s for bools (tgc.add takes
    numbers: bool fill_ and copy_ were internal errors)."""
    if v.dtype == torch.bool:
        base = _full_value(tr, real, False, like=v)
        return _binary_value(tr, "logical_or", base, s, v.dtype)
    base = _full_value(tr, real, -0.0 if v.dtype.is_floating_point else 0, like=v)
    return _binary_value(tr, "add", base, s, v.dtype)


@op("copy")
def _copy(tr, real, x, src, non_blocking=False):
    """x.copy_(src): src converted to x's dtype and broadcast to its shape."""
    v = tval(tr, x)
    if not isinstance(src, torch.Tensor):  # x.copy_(2.5)
        return _full_value(tr, real, src, like=v)
    if src.device != x.device:
        raise Unsupported("copy_ across devices inside the function")
    s = convert(tr, tval(tr, src), v.dtype)
    if s.shape == v.shape:
        return s
    return _broadcast_into(tr, real, v, s)


# --- reductions and linear algebra -------------------------------------------------


def _stat_mean(stat: str):
    """(var or std, mean) of one reduction: var_mean, std_mean."""
    def handler(tr, real, x, dim=None, unbiased=None, keepdim=False, **kw):
        out = HANDLERS[stat](tr, real[0], x, dim, unbiased, keepdim, **kw)
        d = kw.get("dim", dim)
        if isinstance(d, bool):  # var_mean(x, unbiased)
            d = None
        return [out, HANDLERS["mean"](tr, real[1], x, d, kw.get("keepdim", keepdim))]

    return handler


HANDLERS["var_mean"] = _stat_mean("var")
HANDLERS["std_mean"] = _stat_mean("std")


@op("baddbmm")
def _baddbmm(tr, real, bias, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2), by PyTorch's keyword names
    (HF BLOOM's alibi.baddbmm(batch1=q, batch2=k, ...)); beta = 0 ignores
    the input, NaN included."""
    from .nn import _bmm

    prod = _bmm(tr, real, batch1, batch2)
    if alpha != 1:
        prod = _binary_value(tr, "mul", prod, as_value(tr, alpha, real.dtype), real.dtype)
    if beta == 0:  # PyTorch ignores the input (NaN and inf included)
        return prod
    add = as_value(tr, bias, real.dtype)
    if beta != 1:
        add = _binary_value(tr, "mul", add, as_value(tr, beta, real.dtype), real.dtype)
    return _binary_value(tr, "add", add, prod, real.dtype)


# --- constant factories ------------------------------------------------------------


@op("eye", "linspace", "logspace")
def _constant_factory(tr, real, *args, **kw):
    """Factories of Python numbers only: their value is the eager result."""
    if any(isinstance(a, torch.Tensor) for a in list(args) + list(kw.values())):
        raise Unsupported("linspace/logspace with tensor bounds")
    if real.numel() > 4096:
        raise Unsupported("a constant factory result with more than 4096 elements")
    return dense_constant(tr, real)


# --- pooling, upsampling and padding as gathers -----------------------------------------


def _gather_dim(tr, v: Value, d: int, index: List[int]) -> Value:
    """v indexed along `d` by the constant list `index`."""
    idx = dense_constant(tr, torch.tensor(index, dtype=torch.int64))
    shape = list(v.shape)
    shape[d] = len(index)
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(
        f"tgc.index_select {v.name}, {idx.name} dim = {d} : {v.type}, {idx.type} -> {rt}",
        [(v.dtype, shape)], tr.loc())[0]


def _static_sizes(v: Value, dims, what: str) -> List[int]:
    out = []
    for d in dims:
        s = v.shape[d]
        if isinstance(s, Dyn):
            raise Unsupported(f"{what} of a dynamic spatial size")
        out.append(s)
    return out


@op("adaptive_avg_pool2d", "_adaptive_avg_pool2d")
def _adaptive_avg_pool2d(tr, real, x, output_size):
    from .nn import _avg_pool2d
    from .reductions import _reduction

    v = tval(tr, x)
    out = [o if o is not None else v.shape[v.rank - 2 + i]
           for i, o in enumerate(_pair_or_none(output_size))]
    if out == [1, 1]:
        return _reduction("mean")(tr, real, x, [-2, -1], True)
    h, w = _static_sizes(v, (v.rank - 2, v.rank - 1), "adaptive_avg_pool2d")
    if h % out[0] or w % out[1]:
        return _adaptive_mean(tr, _adaptive_mean(tr, v, v.rank - 2, out[0]), v.rank - 1, out[1])
    k = [h // out[0], w // out[1]]
    return _avg_pool2d(tr, real, x, k, k)


def _adaptive_mean(tr, v: Value, d: int, out: int) -> Value:
    """Adaptive average pooling along `d` (static size n) to `out`: output
    i averages [floor(i n / out), ceil((i + 1) n / out)), PyTorch's
    windows, each a sum divided by its length."""
    from .reductions import sum_value
    from .shapes import _concat_values, _reshape_to, _slice

    n = v.shape[d]
    parts = []
    for i in range(out):
        lo, hi = (i * n) // out, -((-(i + 1) * n) // out)
        s = sum_value(tr, _slice(tr, v, d, lo, hi, 1), [d], v.dtype)
        s = _binary_value(tr, "div", s, constant(tr, hi - lo, v.dtype), v.dtype)
        parts.append(_reshape_to(tr, s, v.shape[:d] + [1] + v.shape[d + 1:]))
    return _concat_values(tr, parts, d, v)


def _pair_or_none(x):
    if isinstance(x, int) or x is None:
        return [x, x]
    return list(x)


def _nearest_index(in_size: int, out_size: int, scale) -> List[int]:
    """PyTorch's nearest source index (upsample_nearest: floorf(i * s)
    with s = 1/scale_factor when given, else in/out, in f32)."""
    if out_size == in_size:
        return list(range(out_size))
    if out_size == 2 * in_size:  # PyTorch shifts, whatever the scale
        return [i >> 1 for i in range(out_size)]
    f32 = torch.float32
    if scale is not None and scale > 0:
        s = torch.tensor(1.0 / scale, dtype=f32)  # double division, then float
    else:
        s = torch.tensor(in_size, dtype=f32) / torch.tensor(out_size, dtype=f32)
    i = torch.arange(out_size, dtype=f32) * s
    return [min(int(t), in_size - 1) for t in torch.floor(i).tolist()]


def _upsample_nearest(tr, v: Value, real, scales) -> Value:
    spatial = list(range(2, v.rank))
    ins = _static_sizes(v, spatial, "nearest upsampling")
    outs = [int(real.shape[d]) for d in spatial]
    for d, i, o, s in zip(spatial, ins, outs, scales):
        if i != o or s is not None:
            v = _gather_dim(tr, v, d, _nearest_index(i, o, s))
    return v


def _filter_taps(in_size: int, out_size: int, align_corners: bool, scale, cubic: bool,
                 acc: torch.dtype):
    """The source indices and weights of linear (2 taps) or cubic (4 taps)
    interpolation along one dim, computed as PyTorch's upsample kernels
    compute them, in their accumulation type `acc`
    (area_pixel_compute_scale / _source_index, guard_index_and_lambda,
    get_cubic_upsample_coefficients with A = -0.75)."""
    t = lambda v: torch.tensor(v, dtype=acc)  # noqa: E731
    if align_corners:
        s = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0.0)
    elif scale is not None and scale > 0:
        s = t(1.0 / scale)
    else:
        s = t(in_size) / t(out_size)
    dst = torch.arange(out_size, dtype=acc)
    src = s * dst if align_corners else s * (dst + 0.5) - 0.5
    last = in_size - 1
    if cubic:
        i0 = torch.floor(src)
        x1 = src - i0
        a = -0.75

        def conv1(x):
            return ((a + 2) * x - (a + 3)) * x * x + 1

        def conv2(x):
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

        x2 = 1.0 - x1
        weights = [conv2(x1 + 1.0), conv1(x1), conv1(x2), conv2(x2 + 1.0)]
        base = i0.to(torch.int64)
        index = [(base + k - 1).clamp(0, last).tolist() for k in range(4)]
        return index, weights
    if not align_corners:
        src = src.clamp(min=0)
    i0 = torch.floor(src).to(torch.int64).clamp(max=last)
    lam = (src - i0.to(acc)).clamp(0, 1)
    i1 = i0 + (i0 < last).to(torch.int64)
    return [i0.tolist(), i1.tolist()], [1.0 - lam, lam]


def _upsample_filtered(tr, v: Value, real, scales, align_corners: bool, cubic: bool):
    """Bilinear / bicubic upsampling (and linear / trilinear) as a weighted
    sum of gathers along each spatial dim, the last dim first (the order of
    PyTorch's kernels), in the accumulation type."""
    spatial = list(range(2, v.rank))
    ins = _static_sizes(v, spatial, "bilinear/bicubic upsampling")
    outs = [int(real.shape[d]) for d in spatial]
    acc = torch.float64 if real.dtype == torch.float64 else torch.float32
    if not real.dtype.is_floating_point:
        raise Unsupported("linear or cubic interpolation of an integer tensor")
    v = convert(tr, v, acc)
    for d, i, o, s in reversed(list(zip(spatial, ins, outs, scales))):
        index, weights = _filter_taps(i, o, bool(align_corners), s, cubic, acc)
        total = None
        for idx, w in zip(index, weights):
            shape = [o] + [1] * (v.rank - 1 - d)
            wv = dense_constant(tr, w.reshape(shape))
            term = _binary_value(tr, "mul", _gather_dim(tr, v, d, idx), wv, acc)
            total = term if total is None else _binary_value(tr, "add", total, term, acc)
        v = total
    return convert(tr, v, real.dtype)


def _taps_in_graph(tr, in_size: int, out, align_corners: bool, cubic: bool, acc):
    """_filter_taps for an output size known only at run time (`out`: a
    SymInt): the same arithmetic on an iota of the output positions, in
    the graph. Returns (index values, weight values), each of shape [out]."""
    from .shapes import _iota

    i64 = torch.int64
    n = tr.dyn_for(out)
    out_f = convert(tr, as_value(tr, out, i64), acc)
    if align_corners:
        scale = _binary_value(tr, "div", constant(tr, in_size - 1, acc),
                              _binary_value(tr, "sub", out_f, constant(tr, 1, acc), acc), acc)
    else:
        scale = _binary_value(tr, "div", constant(tr, in_size, acc), out_f, acc)
    dst = convert(tr, _iota(tr, 0, n), acc)

    def bin_(mn, a, b, dt=acc):
        b = b if isinstance(b, Value) else constant(tr, b, dt)
        a = a if isinstance(a, Value) else constant(tr, a, dt)
        return _binary_value(tr, mn, a, b, dt)

    if align_corners:
        src = bin_("mul", scale, dst)
    else:
        src = bin_("sub", bin_("mul", scale, bin_("add", dst, 0.5)), 0.5)
    last = in_size - 1

    def floor(a):
        return tr.graph.emit(f"tgc.floor {a.name} : {a.type}", [(acc, a.shape)], tr.loc())[0]

    def clamp_index(a):
        return bin_("minimum", bin_("maximum", a, 0, i64), last, i64)

    if cubic:
        f0 = floor(src)
        x1 = bin_("sub", src, f0)
        a = -0.75

        def conv1(x):
            return bin_("add", bin_("mul", bin_("mul", bin_("sub", bin_("mul", x, a + 2), a + 3),
                                                x), x), 1.0)

        def conv2(x):
            inner = bin_("add", bin_("mul", bin_("sub", bin_("mul", x, a), 5 * a), x), 8 * a)
            return bin_("sub", bin_("mul", inner, x), 4 * a)

        x2 = bin_("sub", 1.0, x1)
        weights = [conv2(bin_("add", x1, 1.0)), conv1(x1), conv1(x2),
                   conv2(bin_("add", x2, 1.0))]
        base = convert(tr, f0, i64)
        index = [clamp_index(bin_("add", base, k - 1, i64)) for k in range(4)]
        return index, weights
    if not align_corners:
        src = bin_("maximum", src, 0.0)
    i0 = bin_("minimum", convert(tr, floor(src), i64), last, i64)
    lam = bin_("minimum", bin_("maximum", bin_("sub", src, convert(tr, i0, acc)), 0.0), 1.0)
    i1 = bin_("minimum", bin_("add", i0, 1, i64), last, i64)
    return [i0, i1], [bin_("sub", 1.0, lam), lam]


def _upsample_to_symbolic(tr, v: Value, real, outs, align_corners: bool, cubic: bool):
    """Linear or cubic upsampling to sizes that are SymInts (HF ViT's
    interpolate_pos_encoding through Dynamo): indices and weights computed
    in the graph, so that one compile serves every output size."""
    from .shapes import _reshape_to

    spatial = list(range(2, v.rank))
    ins = _static_sizes(v, spatial, "bilinear/bicubic upsampling")
    acc = torch.float64 if real.dtype == torch.float64 else torch.float32
    v = convert(tr, v, acc)
    for d, i, o in reversed(list(zip(spatial, ins, outs))):
        index, weights = _taps_in_graph(tr, i, o, align_corners, cubic, acc)
        total = None
        for idx, w in zip(index, weights):
            shape = list(v.shape)
            shape[d] = idx.shape[0]
            rt = format_type(acc, shape)
            g = tr.graph.emit(
                f"tgc.index_select {v.name}, {idx.name} dim = {d} : {v.type}, {idx.type} -> {rt}",
                [(acc, shape)], tr.loc())[0]
            wv = _reshape_to(tr, w, [w.shape[0]] + [1] * (v.rank - 1 - d))
            term = _binary_value(tr, "mul", g, wv, acc)
            total = term if total is None else _binary_value(tr, "add", total, term, acc)
        v = total
    return convert(tr, v, real.dtype)


_FILTERS = {"linear": False, "bilinear": False, "trilinear": False, "bicubic": True}


@op("interpolate", "upsample", symbolic=True)
def _interpolate(tr, real, x, size=None, scale_factor=None, mode="nearest",
                 align_corners=None, recompute_scale_factor=None, antialias=False):
    from .._sym import SymInt
    from .core import specialize_syms

    if mode not in ("nearest",) + tuple(_FILTERS):
        raise Unsupported(f"interpolate(mode={mode!r})")
    if antialias:
        raise Unsupported("interpolate(antialias=True)")
    v = tval(tr, x)
    n = v.rank - 2
    sizes = list(size) if isinstance(size, (list, tuple)) else [size] * n
    if mode != "nearest" and scale_factor is None and \
            any(isinstance(s, SymInt) for s in sizes):
        return _upsample_to_symbolic(tr, v, real, sizes, bool(align_corners),
                                     _FILTERS[mode])
    # Otherwise the sizes come from the traced result: guarded numbers.
    specialize_syms(tr, size, "interpolate size")
    scale_factor = specialize_syms(tr, scale_factor, "interpolate scale")
    if scale_factor is not None and not recompute_scale_factor:
        scales = list(scale_factor) if isinstance(scale_factor, (list, tuple)) \
            else [scale_factor] * n
    else:
        scales = [None] * n
    scales = [float(s) if s is not None else None for s in scales]
    if mode != "nearest":
        return _upsample_filtered(tr, v, real, scales, bool(align_corners), _FILTERS[mode])
    return _upsample_nearest(tr, v, real, scales)


def _aten_upsample_nearest(n: int):
    def handler(tr, real, x, output_size=None, *scales, **kw):
        v = tval(tr, x)
        if len(scales) == 1 and (scales[0] is None or isinstance(scales[0], (list, tuple))):
            s = scales[0] or [None] * n  # .vec: (input, output_size, scale_factors)
        else:
            s = list(scales) + [None] * (n - len(scales))
        return _upsample_nearest(tr, v, real, [float(e) if e else None for e in s])

    return handler


for _n in (1, 2, 3):
    HANDLERS[f"upsample_nearest{_n}d"] = _aten_upsample_nearest(_n)


def _aten_upsample_filtered(n: int, cubic: bool):
    # upsample_bilinear2d(x, output_size, align_corners, scales_h=None,
    # scales_w=None); the .vec form: (x, output_size, align_corners,
    # scale_factors).
    def handler(tr, real, x, output_size=None, align_corners=False, *scales, **kw):
        v = tval(tr, x)
        if len(scales) == 1 and (scales[0] is None or isinstance(scales[0], (list, tuple))):
            s = scales[0] or [None] * n
        else:
            s = list(scales) + [None] * (n - len(scales))
        s = [kw.get(k, e) for k, e in zip(("scales_d", "scales_h", "scales_w")[3 - n:], s)]
        return _upsample_filtered(tr, v, real, [float(e) if e else None for e in s],
                                  bool(align_corners), cubic)

    return handler


HANDLERS["upsample_linear1d"] = _aten_upsample_filtered(1, False)
HANDLERS["upsample_bilinear2d"] = _aten_upsample_filtered(2, False)
HANDLERS["upsample_trilinear3d"] = _aten_upsample_filtered(3, False)
HANDLERS["upsample_bicubic2d"] = _aten_upsample_filtered(2, True)


def _pad_index(size: int, low: int, high: int, mode: str) -> List[int]:
    out = []
    for j in range(-low, size + high):
        if mode == "replicate":
            out.append(min(max(j, 0), size - 1))
        else:  # reflect: mirror without repeating the edge
            if low >= size or high >= size:
                raise Unsupported("reflection padding as large as the input")
            k = abs(j)
            out.append(k if k < size else 2 * (size - 1) - k)
    return out


def padded(tr, x, pad, mode: str) -> Value:
    """F.pad with mode reflect, replicate or circular: a gather per padded
    dim with the indices PyTorch reads."""
    v = tval(tr, x)
    pad = [int(p) for p in pad]
    for i in range(len(pad) // 2):
        d = v.rank - 1 - i
        low, high = pad[2 * i], pad[2 * i + 1]
        if low == 0 and high == 0:
            continue
        if low < 0 or high < 0:
            raise Unsupported("negative padding")
        (size,) = _static_sizes(v, (d,), f"{mode} padding")
        if mode == "circular":
            index = [j % size for j in range(-low, size + high)]
        else:
            index = _pad_index(size, low, high, mode)
        v = _gather_dim(tr, v, d, index)
    return v


for _mode in ("reflect", "replicate", "circular"):
    for _n in (1, 2, 3):
        name = {"reflect": "reflection", "replicate": "replication"}.get(_mode)
        if name:
            HANDLERS[f"{name}_pad{_n}d"] = (
                lambda m: lambda tr, real, x, pad: padded(tr, x, pad, m))(_mode)
HANDLERS["_pad_circular"] = lambda tr, real, x, pad: padded(tr, x, pad, "circular")


@op("diff")
def _diff(tr, real, x, n=1, dim=-1, prepend=None, append=None):
    """x[1:] - x[:-1] along `dim`, `n` times, after prepend/append (bool:
    logical xor, as PyTorch)."""
    from .shapes import _cat, _slice

    v = tval(tr, x)
    d = norm_dim(int(dim), v.rank)
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        if any(not isinstance(t, torch.Tensor) for t in parts):
            raise Unsupported("diff with a scalar prepend/append")
        cat_real = torch.cat(parts, d)
        v = _cat(tr, cat_real, parts, d)
    for _ in range(int(n)):
        hi = _slice(tr, v, d, 1, None, 1)
        lo = _slice(tr, v, d, 0, -1, 1)
        mn = "cmp ne," if v.dtype == torch.bool else "sub"
        v = _binary_value(tr, mn, hi, lo, v.dtype)
    return v


# --- 1-d pooling as 2-d pooling over a unit height ------------------------------


def _one(x) -> int:
    return int(x[0] if isinstance(x, (list, tuple)) else x)


def _pool1d(tr, real, x, pool):
    """`pool(value, real)` on x with a unit dim inserted before the last,
    then removed: 1-d pooling through the 2-d ops."""
    from .shapes import _reshape_to, _unsqueeze

    v = tval(tr, x)
    if v.rank not in (2, 3):
        raise Unsupported("1-d pooling of a tensor of rank other than 2 or 3")
    out = pool(_unsqueeze(tr, v, v.rank - 1), real.unsqueeze(-2))
    return _reshape_to(tr, out, out.shape[:-2] + out.shape[-1:])


@op("avg_pool1d")
def _avg_pool1d(tr, real, x, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True):
    from .nn import _avg_pool2d_value

    if not tval(tr, x).dtype.is_floating_point:
        raise Unsupported("avg_pool1d of integers")
    k = _one(kernel_size)
    s = k if stride is None or stride == [] else _one(stride)
    return _pool1d(tr, real, x, lambda v, r: _avg_pool2d_value(
        tr, v, r, [1, k], [1, s], [0, _one(padding)], ceil_mode, count_include_pad, None))


@op("max_pool1d")
def _max_pool1d(tr, real, x, kernel_size, stride=None, padding=0, dilation=1,
                ceil_mode=False, return_indices=False):
    from .nn import _max_pool2d_value

    if return_indices:
        raise Unsupported("max_pool1d(return_indices=True)")
    k = _one(kernel_size)
    s = k if stride is None or stride == [] else _one(stride)
    return _pool1d(tr, real, x, lambda v, r: _max_pool2d_value(
        tr, v, r, [1, k], [1, s], [0, _one(padding)], [1, _one(dilation)], ceil_mode))


@op("adaptive_avg_pool1d")
def _adaptive_avg_pool1d(tr, real, x, output_size):
    from .nn import _avg_pool2d_value

    v = tval(tr, x)
    o = _one(output_size)
    (n,) = _static_sizes(v, (v.rank - 1,), "adaptive_avg_pool1d")
    if n % o:
        return _adaptive_mean(tr, v, v.rank - 1, o)
    k = n // o
    return _pool1d(tr, real, x, lambda v, r: _avg_pool2d_value(
        tr, v, r, [1, k], [1, k], [0, 0], False, True, None))


# --- any/all as reductions, threshold ----------------------------------------------


def _any_all(mnemonic: str):
    def handler(tr, real, x, dim=None, keepdim=False, **kw):
        from .reductions import _dims, _reduce_shape, _reduction

        dim, keepdim = kw.get("dim", dim), kw.get("keepdim", keepdim)
        v = tval(tr, x)
        dims = _dims(v, dim)
        if any(v.shape[d] == 0 for d in dims):
            # Over nothing: any is False and all is True (max/min have no
            # identity there).
            return _full_value(tr, real, mnemonic == "amin",
                               shape=_reduce_shape(v, dims, keepdim))
        if real.dtype != torch.bool:
            # uint8 in, uint8 out (0 or 1): over x != 0, as for bools.
            b = convert(tr, v, torch.bool)
            i8 = convert(tr, b, torch.int8)
            shape = _reduce_shape(i8, dims, keepdim)
            kd = " keepdim" if keepdim else ""
            r = tr.graph.emit(
                f"tgc.{mnemonic} {i8.name} dims {list(dims)}{kd} : {i8.type} -> "
                f"{format_type(torch.int8, shape)}", [(torch.int8, shape)], tr.loc())[0]
            return convert(tr, r, real.dtype)
        # x != 0 per element (NaN counts as true), then max/min over bools.
        return _reduction(mnemonic)(tr, real, x, dim, keepdim)

    return handler


HANDLERS["any"] = _any_all("amax")
HANDLERS["all"] = _any_all("amin")


@op("threshold", "_threshold")
def _threshold(tr, real, x, threshold, value, inplace=False):
    # value where x <= threshold, as ATen selects it: NaN is kept (a test
    # of x > threshold replaced it, found by a helper's sweep).
    v = as_value(tr, x, real.dtype)
    low = _binary_value(tr, "cmp le,", v, as_value(tr, threshold, real.dtype), torch.bool)
    return _where_values(tr, low, as_value(tr, value, real.dtype), v, real.dtype)


def _gather_values(tr, v: Value, d: int, idx: Value, real) -> Value:
    """v gathered along `d` by the integer tensor `idx` (any shape, negative
    entries counting from the end): idx's dims replace dim d."""
    from .shapes import _reshape_to

    i64 = convert(tr, idx, torch.int64)
    neg = _binary_value(tr, "cmp lt,", i64, constant(tr, 0, torch.int64), torch.bool)
    wrapped = _binary_value(tr, "add", i64, _size_tensor(tr, v, d), torch.int64)
    i64 = _where_values(tr, neg, wrapped, i64, torch.int64)
    flat = i64 if i64.rank == 1 else _reshape_to(tr, i64, [_flat_size(i64)])
    shape = list(v.shape)
    shape[d] = flat.shape[0]
    rt = format_type(v.dtype, shape)
    out = tr.graph.emit(
        f"tgc.index_select {v.name}, {flat.name} dim = {d} : {v.type}, {flat.type} -> {rt}",
        [(v.dtype, shape)], tr.loc())[0]
    if i64.rank == 1:
        return out
    return _reshape_to(tr, out, list(v.shape[:d]) + list(i64.shape) + list(v.shape[d + 1:]))


def _size_tensor(tr, v: Value, d: int) -> Value:
    """Size `d` of `v` as a 0-d i64 tensor (core.sym_tensor)."""
    from .core import sym_tensor

    size = tr.sym_size(v, d)
    if isinstance(size, int):
        return constant(tr, size, torch.int64)
    return sym_tensor(tr, size.expr)


def _flat_size(v: Value):
    from .._graph import size_value
    from .core import derived, product_expr

    n = 1
    for s in v.shape:
        n *= size_value(s)
    if all(isinstance(s, int) for s in v.shape):
        return n
    return derived(v.shape, n, product_expr(v.shape))


# --- losses --------------------------------------------------------------------


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _nll(tr, logp: Value, target: Value, weight, ignore_index: int, reduction: str, dt,
         with_total: bool = False):
    """PyTorch's nll_loss over class dim 1 (or 0 for an unbatched input):
    -logp[target] * weight[target], ignored targets weighing 0; "mean"
    divides by the sum of the weights (NaN when every target is ignored).
    `with_total`: (loss, total_weight) as aten.nll_loss_forward returns them
    (the sum of the weights; 0 for a batched input without reduction)."""
    from .shapes import _reshape_to, _unsqueeze

    unbatched = logp.rank == 1
    if unbatched:
        logp, target = _unsqueeze(tr, logp, 0), _unsqueeze(tr, target, 0)
    t = convert(tr, target, torch.int64)
    valid = _binary_value(tr, "cmp ne,", t, constant(tr, int(ignore_index), torch.int64),
                          torch.bool)
    safe = _where_values(tr, valid, t, constant(tr, 0, torch.int64), torch.int64)
    idx = _unsqueeze(tr, safe, 1)
    rt = format_type(dt, idx.shape)
    picked = tr.graph.emit(
        f"tgc.gather {logp.name}, {idx.name} dim = 1 : {logp.type}, {idx.type} -> {rt}",
        [(dt, list(idx.shape))], tr.loc())[0]
    picked = _reshape_to(tr, picked, list(safe.shape))
    if weight is not None:
        w = _gather_values(tr, convert(tr, tval(tr, weight), dt), 0, safe, None)
        w = _where_values(tr, valid, w, constant(tr, 0, dt), dt)
    else:
        w = _where_values(tr, valid, constant(tr, 1, dt), constant(tr, 0, dt), dt)
    loss = _binary_value(tr, "mul", tr.graph.emit(f"tgc.neg {picked.name} : {picked.type}",
                                                  [(dt, picked.shape)], tr.loc())[0], w, dt)
    if reduction == "none":
        out = _reshape_to(tr, loss, []) if unbatched else loss
        if with_total:
            return out, _sum_all(tr, w, dt) if unbatched else constant(tr, 0, dt)
        return out
    total = _sum_all(tr, loss, dt)
    weights = _sum_all(tr, w, dt)
    out = total if reduction == "sum" else _binary_value(tr, "div", total, weights, dt)
    return (out, weights) if with_total else out


def _sum_all(tr, v: Value, dt) -> Value:
    from .reductions import sum_value

    return sum_value(tr, v, range(v.rank), dt)


def _reduction_name(reduction, size_average=None, reduce=None) -> str:
    if size_average is not None or reduce is not None:
        raise Unsupported("the deprecated size_average/reduce arguments")
    return _REDUCTIONS.get(reduction, reduction) if isinstance(reduction, int) else reduction


@op("nll_loss")
def _nll_loss(tr, real, x, target, weight=None, size_average=None, ignore_index=-100,
              reduce=None, reduction="mean"):
    red = _reduction_name(reduction, size_average, reduce)
    return _nll(tr, tval(tr, x), tval(tr, target), weight, ignore_index, red, real.dtype)


@op("nll_loss_forward")
def _nll_loss_forward(tr, real, x, target, weight, reduction, ignore_index):
    """aten: (loss, total_weight)."""
    out, total = _nll(tr, tval(tr, x), tval(tr, target), weight, ignore_index,
                      _reduction_name(reduction), real[0].dtype, with_total=True)
    return [out, convert(tr, total, real[1].dtype)]


@op("cross_entropy")
def _cross_entropy(tr, real, x, target, weight=None, size_average=None, ignore_index=-100,
                   reduce=None, reduction="mean", label_smoothing=0.0):
    if label_smoothing:
        raise Unsupported("cross_entropy with label_smoothing")
    if isinstance(target, torch.Tensor) and target.is_floating_point():
        raise Unsupported("cross_entropy with class probabilities")
    v = convert(tr, tval(tr, x), real.dtype)
    d = 0 if v.rank == 1 else 1
    logp = tr.graph.emit(f"tgc.log_softmax {v.name} dim = {d} : {v.type}",
                         [(v.dtype, v.shape)], tr.loc())[0]
    red = _reduction_name(reduction, size_average, reduce)
    return _nll(tr, logp, tval(tr, target), weight, ignore_index, red, real.dtype)
