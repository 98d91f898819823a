"""Operators that rearrange or count elements, written with other ``tgc``
ops (no IR of their own): ``diagonal`` and ``trace`` (a gather of the
flattened last two dims), ``channel_shuffle``, ``pixel_shuffle`` and
``pixel_unshuffle`` (reshapes and a permutation), ``count_nonzero``,
``bucketize`` (a comparison with every boundary, counted),
``threshold_backward`` and ``zero_``."""

from __future__ import annotations

from typing import List

import torch

from .._graph import Dyn, Unsupported, Value
from .core import constant, convert, norm_dim, op, tval
from .elementwise import _binary_value, _where_values
from .reductions import sum_value as _sum
from .shapes import _permute, _reshape_to, _unsqueeze


def _static(v: Value, dims, what: str) -> List[int]:
    out = []
    for d in dims:
        if isinstance(v.shape[d], Dyn):
            raise Unsupported(f"{what} of a dynamic size")
        out.append(v.shape[d])
    return out


def _diagonal_value(tr, v: Value, offset: int, d1: int, d2: int) -> Value:
    """The diagonal of dims d1, d2 as the last dim (PyTorch's diagonal)."""
    from .composite import _gather_dim

    d1, d2 = norm_dim(d1, v.rank), norm_dim(d2, v.rank)
    if d1 == d2:
        raise Unsupported("diagonal of a dim with itself")
    n1, n2 = _static(v, (d1, d2), "diagonal")
    rest = [d for d in range(v.rank) if d not in (d1, d2)]
    moved = _permute(tr, v, rest + [d1, d2])
    flat = _reshape_to(tr, moved, [moved.shape[d] for d in range(len(rest))] + [n1 * n2])
    r0, c0 = max(0, -offset), max(0, offset)
    length = max(0, min(n1 - r0, n2 - c0))
    index = [(r0 + i) * n2 + c0 + i for i in range(length)]
    return _gather_dim(tr, flat, len(rest), index)


@op("diagonal")
def _diagonal(tr, real, x, offset=0, dim1=0, dim2=1):
    return _diagonal_value(tr, tval(tr, x), int(offset), int(dim1), int(dim2))


@op("trace")
def _trace(tr, real, x):
    v = tval(tr, x)
    if v.rank != 2:
        raise Unsupported("trace of a tensor that is not 2-d")
    return _sum(tr, _diagonal_value(tr, v, 0, 0, 1), [0], real.dtype)


@op("channel_shuffle", "native_channel_shuffle")
def _channel_shuffle(tr, real, x, groups):
    v = tval(tr, x)
    g = int(groups)
    c = _static(v, (1,), "channel_shuffle")[0]
    if g <= 0 or c % g:
        raise Unsupported("channel_shuffle with groups that do not divide the channels")
    split = _reshape_to(tr, v, [v.shape[0], g, c // g] + list(v.shape[2:]))
    perm = [0, 2, 1] + list(range(3, split.rank))
    return _reshape_to(tr, _permute(tr, split, perm), list(v.shape))


def _pixel(tr, real, x, factor: int, shuffle: bool) -> Value:
    v = tval(tr, x)
    if v.rank < 3:
        raise Unsupported("pixel (un)shuffle of a tensor of rank < 3")
    r = int(factor)
    lead = list(v.shape[:-3])
    c, h, w = _static(v, (v.rank - 3, v.rank - 2, v.rank - 1), "pixel (un)shuffle")
    k = len(lead)
    if shuffle:  # [C*r*r, H, W] -> [C, H*r, W*r]
        parts = _reshape_to(tr, v, lead + [c // (r * r), r, r, h, w])
        perm = list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2]
        out = lead + [c // (r * r), h * r, w * r]
    else:  # [C, H*r, W*r] -> [C*r*r, H, W]
        parts = _reshape_to(tr, v, lead + [c, h // r, r, w // r, r])
        perm = list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3]
        out = lead + [c * r * r, h // r, w // r]
    return _reshape_to(tr, _permute(tr, parts, perm), out)


@op("pixel_shuffle")
def _pixel_shuffle(tr, real, x, upscale_factor):
    return _pixel(tr, real, x, upscale_factor, True)


@op("pixel_unshuffle")
def _pixel_unshuffle(tr, real, x, downscale_factor):
    return _pixel(tr, real, x, downscale_factor, False)


@op("count_nonzero")
def _count_nonzero(tr, real, x, dim=None):
    v = tval(tr, x)
    nz = _binary_value(tr, "cmp ne,", v, constant(tr, 0, v.dtype), torch.bool)
    if dim is None:
        dims = list(range(v.rank))
    else:
        dims = sorted({norm_dim(int(d), v.rank) for d in
                       (dim if isinstance(dim, (list, tuple)) else [dim])})
    return _sum(tr, nz, dims, torch.int64)


@op("bucketize")
def _bucketize(tr, real, x, boundaries, *, out_int32=False, right=False):
    """The number of boundaries below x (right=False: boundaries[i-1] < x
    <= boundaries[i]) or not above it (right=True), for sorted boundaries."""
    if not isinstance(x, torch.Tensor):
        raise Unsupported("bucketize of a Python number")
    v, b = tval(tr, x), tval(tr, boundaries)
    if b.rank != 1:
        raise Unsupported("bucketize with boundaries that are not 1-d")
    dt = torch.promote_types(v.dtype, b.dtype)
    xv = _unsqueeze(tr, convert(tr, v, dt), v.rank)
    below = _binary_value(tr, "cmp ge," if right else "cmp gt,", xv, convert(tr, b, dt),
                          torch.bool)
    return _sum(tr, below, [v.rank], real.dtype)


@op("threshold_backward")
def _threshold_backward(tr, real, grad, x, threshold):
    g, v = tval(tr, grad), tval(tr, x)
    keep = _binary_value(tr, "cmp le,", v, constant(tr, threshold, v.dtype), torch.bool)
    return _where_values(tr, keep, constant(tr, 0, real.dtype), convert(tr, g, real.dtype),
                         real.dtype)


@op("zero")
def _zero(tr, real, x):
    from .factories import _full_value

    return _full_value(tr, real, 0, like=tval(tr, x))
