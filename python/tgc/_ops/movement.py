"""Operators that move elements, written with other ``tgc`` ops: ``flip``
and ``rot90`` (gathers with reversed indices), ``roll`` (two slices
concatenated), ``slice_scatter`` and ``select_scatter`` (the untouched
parts and the source concatenated), ``diag_embed`` (a select of the
padded input under a constant diagonal mask), ``x[index] = value`` (the
same concatenation per indexed dim), ``Tensor.unfold`` (a gather of the
windows). Along static sizes; a dynamic one is
an Unsupported call (a graph break), but for a ``slice_scatter`` over all
of it. ``repeat``, ``tile`` and ``repeat_interleave`` (a new dim broadcast
and merged with its neighbour) take dynamic sizes."""

from __future__ import annotations

import math
from typing import List, Optional

import torch

from .._graph import Dyn, Unsupported, Value, size_value
from .core import norm_dim, op, product_expr, tval
from .elementwise import _where_values
from .shapes import (_concat_values, _expand_to, _known, _permute, _reshape_to, _slice,
                     _unsqueeze, pad_value)


def _static_size(v: Value, d: int, what: str) -> int:
    s = v.shape[d]
    if isinstance(s, Dyn):
        raise Unsupported(f"{what} along a dynamic size")
    return s


def _flip_value(tr, v: Value, dims) -> Value:
    from .composite import _gather_dim

    for d in sorted({norm_dim(d, v.rank) for d in dims}):
        n = _static_size(v, d, "flip")
        if n > 1:
            v = _gather_dim(tr, v, d, list(range(n - 1, -1, -1)))
    return v


@op("flip")
def _flip(tr, real, x, dims):
    return _flip_value(tr, tval(tr, x), [dims] if isinstance(dims, int) else list(dims))


@op("fliplr")
def _fliplr(tr, real, x):
    return _flip_value(tr, tval(tr, x), [1])


@op("flipud")
def _flipud(tr, real, x):
    return _flip_value(tr, tval(tr, x), [0])


@op("rot90")
def _rot90(tr, real, x, k=1, dims=(0, 1)):
    """k quarter turns from dims[0] towards dims[1] (PyTorch's rot90)."""
    v = tval(tr, x)
    d0, d1 = norm_dim(dims[0], v.rank), norm_dim(dims[1], v.rank)
    if d0 == d1:
        raise Unsupported("rot90 with equal dims (PyTorch raises)")
    k = int(k) % 4
    perm = list(range(v.rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    if k == 0:
        return v
    if k == 2:
        return _flip_value(tr, v, [d0, d1])
    if k == 1:
        return _permute(tr, _flip_value(tr, v, [d1]), perm)
    return _flip_value(tr, _permute(tr, v, perm), [d1])


def _roll_dim(tr, v: Value, shift: int, d: int) -> Value:
    n = _static_size(v, d, "roll")
    if n == 0:
        return v
    s = shift % n
    if s == 0:
        return v
    return _concat_values(tr, [_slice(tr, v, d, n - s, n, 1), _slice(tr, v, d, 0, n - s, 1)],
                          d, v)


@op("roll")
def _roll(tr, real, x, shifts, dims=None):
    from .shapes import _reshape_to

    v = tval(tr, x)
    shifts = [shifts] if isinstance(shifts, int) else [int(s) for s in shifts]
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        if len(shifts) != 1:
            raise Unsupported("roll without dims takes one shift")
        n = 1
        for d in range(v.rank):
            n *= _static_size(v, d, "roll")
        flat = _reshape_to(tr, v, [n])
        return _reshape_to(tr, _roll_dim(tr, flat, shifts[0], 0), list(v.shape))
    dims = [dims] if isinstance(dims, int) else list(dims)
    if len(dims) != len(shifts):
        raise Unsupported("roll with different numbers of shifts and dims (PyTorch raises)")
    for s, d in zip(shifts, dims):
        v = _roll_dim(tr, v, s, norm_dim(d, v.rank))
    return v


def _scatter_into(tr, base: Value, src: Value, d: int, lo: int, hi: int) -> Value:
    n = _static_size(base, d, "slice_scatter")
    parts = [_slice(tr, base, d, 0, lo, 1)] if lo > 0 else []
    parts.append(src)
    if hi < n:
        parts.append(_slice(tr, base, d, hi, n, 1))
    return _concat_values(tr, parts, d, base)


def _whole(size: Dyn, start, end) -> bool:
    """Whether [start:end] is all of a dimension of dynamic `size`."""
    from .._sym import SymInt

    if isinstance(start, SymInt) or start not in (None, 0):
        return False
    if end is None or (isinstance(end, int) and not isinstance(end, SymInt) and end >= 2**62):
        return True
    return isinstance(end, SymInt) and size.expr is not None and end.expr == size.expr


@op("slice_scatter")
def _slice_scatter(tr, real, x, src, dim=0, start=None, end=None, step=1):
    """x with src written over x[start:end] along dim (step 1)."""
    from .core import convert

    v = tval(tr, x)
    d = norm_dim(int(dim), v.rank)
    if int(step) != 1:
        raise Unsupported("slice_scatter with a step")
    if isinstance(v.shape[d], Dyn) and _whole(v.shape[d], start, end):
        # The whole of a dynamic dim (a training backward's slice_backward
        # of x[:, :]): src is the result.
        return convert(tr, tval(tr, src), v.dtype)
    n = _static_size(v, d, "slice_scatter")
    lo, hi, _ = slice(start, end, 1).indices(n)
    hi = max(lo, hi)
    return _scatter_into(tr, v, convert(tr, tval(tr, src), v.dtype), d, lo, hi)


@op("select_scatter")
def _select_scatter(tr, real, x, src, dim, index):
    from .core import convert

    v = tval(tr, x)
    d = norm_dim(int(dim), v.rank)
    n = _static_size(v, d, "select_scatter")
    i = int(index) + (n if int(index) < 0 else 0)
    s = _unsqueeze(tr, convert(tr, tval(tr, src), v.dtype), d)
    return _scatter_into(tr, v, s, d, i, i + 1)


@op("diag_embed")
def _diag_embed(tr, real, x, offset=0, dim1=-2, dim2=-1):
    """out[..., i, i + offset] = x[..., i] (zeros elsewhere), the two new
    dims at dim1 and dim2 of the result."""
    from .factories import dense_constant

    v = tval(tr, x)
    offset = int(offset)
    n = _static_size(v, v.rank - 1, "diag_embed")
    m = n + abs(offset)
    r0 = max(0, -offset)  # the first row holding an element
    low = [0] * v.rank
    high = [0] * v.rank
    low[-1], high[-1] = r0, m - n - r0
    rows = _unsqueeze(tr, pad_value(tr, v, low, high), v.rank)  # [..., m (row), 1]
    mask = torch.zeros(m, m, dtype=torch.bool)
    for i in range(n):
        mask[r0 + i, r0 + i + offset] = True
    out = _where_values(tr, dense_constant(tr, mask), rows,
                        dense_constant(tr, torch.zeros((), dtype=real.dtype)), real.dtype)
    rank = v.rank + 1
    d1, d2 = norm_dim(dim1, rank), norm_dim(dim2, rank)
    if d1 == d2:
        raise Unsupported("diag_embed with equal dims (PyTorch raises)")
    # out is [rest..., row, col]: put row at d1 and col at d2.
    rest = list(range(rank - 2))
    perm: List[Optional[int]] = [None] * rank
    perm[d1], perm[d2] = rank - 2, rank - 1
    it = iter(rest)
    perm = [p if p is not None else next(it) for p in perm]
    return _permute(tr, out, perm)


def _box(v: Value, index) -> List[tuple]:
    """Per dim of `v`, the part `x[index]` selects: (lo, hi, kept) with
    kept False for an integer index; basic indices with step 1 only."""
    items = list(index) if isinstance(index, tuple) else [index]
    if any(i is None or isinstance(i, (torch.Tensor, list, bool)) or
           (isinstance(i, slice) and i.step not in (None, 1)) for i in items):
        # (a bool is a new dim to PyTorch, not the integer 0 or 1)
        raise Unsupported("x[index] = value with an index other than integers and "
                          "step-1 slices (index_put)")
    if items.count(Ellipsis) > 1:
        raise Unsupported("an index with several ellipses")
    if Ellipsis in items:
        k = items.index(Ellipsis)
        items = items[:k] + [slice(None)] * (v.rank - len(items) + 1) + items[k + 1:]
    items += [slice(None)] * (v.rank - len(items))
    out = []
    for d, i in enumerate(items):
        if isinstance(i, slice) and i.start is None and i.stop is None:
            out.append((0, None, True))  # the whole dim (any size)
            continue
        n = _static_size(v, d, "x[index] = value")
        if isinstance(i, slice):
            lo, hi, _ = slice(i.start, i.stop).indices(n)
            out.append((lo, max(lo, hi), True))
        else:
            j = int(i) + (n if int(i) < 0 else 0)
            out.append((j, j + 1, False))
    return out


def _write_box(tr, bv: Value, box, new: Value, d: int = 0) -> Value:
    """bv with the box (from dim d on) replaced by `new` (the box's shape)."""
    while d < bv.rank and box[d][1] is None:
        d += 1
    if d == bv.rank:
        return new
    lo, hi, _ = box[d]
    inner = _write_box(tr, _slice(tr, bv, d, lo, hi, 1), box, new, d + 1) \
        if any(b[1] is not None for b in box[d + 1:]) else new
    return _scatter_into(tr, bv, inner, d, lo, hi)


@op("__setitem__")
def _setitem(tr, real, x, index, value):
    """x[index] = value for integers, step-1 slices and ellipses: the
    untouched parts and the (broadcast) value concatenated, written into x
    (views of x are recomputed: core.refresh_aliases)."""
    from .core import _assign, as_value, constant

    v = tval(tr, x)
    box = _box(v, index)
    part = v
    for d, (lo, hi, _) in enumerate(box):
        if hi is not None:
            part = _slice(tr, part, d, lo, hi, 1)
    # The value broadcasts against x[index] (the box without its integer
    # dims), then takes the box's shape.
    from .shapes import _reshape_to

    indexed = _reshape_to(tr, part, [s for d, s in enumerate(part.shape) if box[d][2]])
    val = as_value(tr, value, v.dtype)
    new = _where_values(tr, constant(tr, True, torch.bool), val, indexed, v.dtype)
    new = _reshape_to(tr, new, list(part.shape))
    _assign(tr, x, _write_box(tr, v, box, new))
    return None


@op("unfold")
def _unfold(tr, real, x, dimension, size, step):
    """Tensor.unfold: windows of `size` every `step` along a static size
    (a gather with constant indices), the window as a new last dim."""
    from .composite import _gather_dim
    from .shapes import _reshape_to

    v = tval(tr, x)
    if v.rank == 0:
        raise Unsupported("unfold of a 0-d tensor")
    d = norm_dim(int(dimension), v.rank)
    n = _static_size(v, d, "unfold")
    size, step = int(size), int(step)
    count = (n - size) // step + 1
    index = [w * step + j for w in range(count) for j in range(size)]
    g = _gather_dim(tr, v, d, index)
    g = _reshape_to(tr, g, v.shape[:d] + [count, size] + v.shape[d + 1:])
    perm = [i for i in range(g.rank) if i != d + 1] + [d + 1]
    return _permute(tr, g, perm)


# --- repeat, tile, repeat_interleave ----------------------------------------------


def _repeat_dims(tr, real, v: Value, reps: List[int]) -> Value:
    """`v` repeated `reps[i]` times along dim i (len(reps) >= rank: leading
    dims of size 1 added): each repeated dim is a new dim of size r before
    it, broadcast, and the two merged (r * s), which a kernel writes as a
    broadcast copy. Dynamic sizes keep their expressions (r * s)."""
    for _ in range(len(reps) - v.rank):
        v = _unsqueeze(tr, v, 0)
    for i, r in enumerate(reps):
        if r == 1:
            continue
        if r == 0:  # an empty dim (a reshape to 0 of a dynamic size does not lower)
            v = _slice(tr, v, i, 0, 0, 1)
            continue
        s = v.shape[i]
        u = _unsqueeze(tr, v, i)
        target = list(u.shape)
        target[i] = r
        u = _expand_to(tr, u, target)
        merged = _known(tr, [r, s], real.shape[i], product_expr([r, s]))
        v = _reshape_to(tr, u, u.shape[:i] + [merged] + u.shape[i + 2:], {i: [i, i + 1]})
    return v


def _int_list(reps) -> List[int]:
    if len(reps) == 1 and isinstance(reps[0], (list, tuple, torch.Size)):
        reps = reps[0]
    return [int(r) for r in reps]


@op("repeat")
def _repeat(tr, real, x, *repeats, **kw):
    """x.repeat(r0, r1, ...): each dim `r` times (more counts than dims add
    leading dims), as a broadcast copy; dynamic sizes stay dynamic."""
    reps = _int_list((kw["repeats"],) if "repeats" in kw else repeats)
    return _repeat_dims(tr, real, tval(tr, x), reps)


@op("tile")
def _tile(tr, real, x, *dims, **kw):
    """torch.tile: repeat, with ones in front of fewer counts than dims."""
    reps = _int_list((kw["dims"],) if "dims" in kw else dims)
    v = tval(tr, x)
    # (fewer repetitions than dims: ones in front, unlike repeat)
    return _repeat_dims(tr, real, v, [1] * (v.rank - len(reps)) + reps)


@op("repeat_interleave")
def _repeat_interleave(tr, real, x, repeats=None, dim=None, *, output_size=None):
    """Each element `repeats` times in a row along `dim` (flattened when
    None): a new dim of size r after it, broadcast, and the two merged. A
    tensor of counts gives a size from the data: a graph break."""
    if not isinstance(x, torch.Tensor) or isinstance(repeats, torch.Tensor):
        raise Unsupported("repeat_interleave with a tensor of counts (a size from the data)")
    r = int(repeats)
    v = tval(tr, x)
    if dim is None:
        if v.rank != 1:
            n = math.prod(size_value(s) for s in v.shape)
            v = _reshape_to(tr, v, [_known(tr, v.shape, n, product_expr(v.shape))],
                            {0: list(range(v.rank))})
        d = 0
    else:
        d = norm_dim(int(dim), v.rank)
    if r == 0:
        return _slice(tr, v, d, 0, 0, 1)
    s = v.shape[d]
    u = _unsqueeze(tr, v, d + 1)
    target = list(u.shape)
    target[d + 1] = r
    u = _expand_to(tr, u, target)
    merged = _known(tr, [s, r], real.shape[d], product_expr([s, r]))
    return _reshape_to(tr, u, u.shape[:d] + [merged] + u.shape[d + 2:], {d: [d, d + 1]})
