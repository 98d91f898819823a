"""Accumulating scatters, each one ``tgc.scatter_add``: ``scatter_add``,
``scatter_reduce(reduce="sum")``, ``index_add`` and ``index_put`` with
``accumulate=True`` (what ``embedding_dense_backward`` decomposes to, so
an embedding's gradient compiles instead of breaking the graph).

``index_put`` takes index tensors on the leading dims (one, or several of
one shape over static sizes, linearized into one); negative indices wrap
as PyTorch's do. Without ``accumulate`` a repeated index's winner is
undefined in PyTorch; that is not compiled (a graph break)."""

from __future__ import annotations

from typing import Any, List

import torch

from .._graph import Dyn, Unsupported, Value, format_type
from .core import constant, convert, expr_of, norm_dim, op, product_expr, tval
from .elementwise import _binary_value
from .shapes import _known, _reshape_to, linear_index


def scatter_add_value(tr, base: Value, index: Value, src: Value, dim: int) -> Value:
    """``tgc.scatter_add``: `index` of `src`'s rank (torch.scatter_add) or
    of rank 1 (whole slices along `dim`, torch.index_add)."""
    if base.dtype == torch.bool:
        raise Unsupported("a scatter-add into a bool tensor")
    src = convert(tr, src, base.dtype)
    return tr.graph.emit(
        f"tgc.scatter_add {base.name}, {index.name}, {src.name} dim = {dim} : "
        f"{base.type}, {index.type}, {src.type} -> {base.type}",
        [(base.dtype, list(base.shape))], tr.loc(),
    )[0]


def _vector(tr, v: Value) -> Value:
    return _reshape_to(tr, v, [1]) if v.rank == 0 else v


def _scatter_any_rank(tr, base: Value, index: Value, src: Value, d: int) -> Value:
    """A 0-d base is scattered into as a 1-element vector (as PyTorch does)."""
    if base.rank > 0:
        return scatter_add_value(tr, base, index, src, d)
    out = scatter_add_value(tr, _vector(tr, base), _vector(tr, index), _vector(tr, src), 0)
    return _reshape_to(tr, out, [])


def _index_tensor(v: Value, what: str) -> None:
    if v.dtype not in (torch.int64, torch.int32):
        raise Unsupported(f"{what} with a {v.dtype} index")


@op("scatter_add")
def _scatter_add(tr, real, x, dim, index, src):
    """out[..., index[p], ...] += src[p] over the index's positions; on the
    GPU with atomic adds (every dtype but bool)."""
    v, i, s = tval(tr, x), tval(tr, index), tval(tr, src)
    _index_tensor(i, "scatter_add")
    return _scatter_any_rank(tr, v, i, s, norm_dim(dim, v.rank))


@op("scatter_reduce")
def _scatter_reduce(tr, real, x, dim, index, src, reduce, include_self=True):
    """reduce="sum" with include_self only (the other reductions: a graph
    break)."""
    if reduce != "sum" or not include_self:
        raise Unsupported(f"scatter_reduce(reduce={reduce!r}, include_self={include_self})")
    return _scatter_add(tr, real, x, dim, index, src)


@op("index_add")
def _index_add(tr, real, x, dim, index, source, alpha=1):
    """Whole slices of source added at the index's positions along dim
    (int32 or int64 indices), scaled by alpha."""
    v, i, s = tval(tr, x), tval(tr, index), tval(tr, source)
    _index_tensor(i, "index_add")
    d = norm_dim(dim, v.rank)
    if i.rank == 0:
        if v.rank > 1:
            raise Unsupported("index_add with a 0-d index into a tensor of rank > 1")
        i, s = _vector(tr, i), _vector(tr, s)
    elif s.rank != v.rank:
        # (PyTorch 1.13 broadcasts a source of lower rank over each slice)
        raise Unsupported("index_add with a source of another rank than the tensor's")
    if alpha != 1:
        s = _binary_value(tr, "mul", convert(tr, s, v.dtype), constant(tr, alpha, v.dtype), v.dtype)
    return _scatter_any_rank(tr, v, i, s, d)


def _guard_equal(tr, a: Dyn, b: Dyn) -> bool:
    """Whether two dynamic sizes are equal in the traced call, guarded to
    stay so (False when the graph does not know one as a function of the
    input sizes, or they differ)."""
    from .._sym import SymInt

    if a.expr is None or b.expr is None or a.value != b.value:
        return False
    return bool(SymInt(tr, a.expr, a.value) == SymInt(tr, b.expr, b.value))


def _broadcast_to(tr, v: Value, shape: List[Any]) -> Value:
    """`v` expanded to `shape` (PyTorch's broadcasting: sizes of 1 stretch,
    leading dims are added)."""
    if list(v.shape) == list(shape):
        return v
    lead = len(shape) - v.rank
    operands = []
    for k, n in enumerate(shape):
        src = v.shape[k - lead] if k >= lead else None
        if isinstance(n, Dyn) and src is not n:
            if isinstance(src, Dyn):
                # Two dynamic sizes the graph computes differently (a
                # training backward's gradient and its saved indices, each
                # an input of its own): PyTorch needs them equal (a dynamic
                # size is not 1), which the call's guards now check.
                if not _guard_equal(tr, src, n):
                    raise Unsupported("index_put values whose dynamic size differs from the "
                                      "index's")
                continue
            operands.append(tr.index_of(n))
    rt = format_type(v.dtype, shape)
    ops = f" [{', '.join(operands)}]" if operands else ""
    return tr.graph.emit(f"tgc.expand {v.name}{ops} : {v.type} -> {rt}",
                         [(v.dtype, list(shape))], tr.loc())[0]


@op("index_put", "_unsafe_index_put")
def _index_put(tr, real, x, indices, values, accumulate=False):
    """With accumulate=True: x[indices] += values, the index tensors on x's
    leading dims (negative ones wrap; several of one shape are linearized);
    without, a graph break."""
    if not accumulate:
        raise Unsupported("index_put without accumulate (a scatter whose repeated "
                          "indices PyTorch leaves undefined)")
    v = tval(tr, x)
    indices = list(indices)
    while indices and indices[-1] is None:
        indices.pop()
    if not indices or any(t is None for t in indices):
        raise Unsupported("index_put with a None (a whole dim) before an index tensor")
    idx = [tval(tr, t) for t in indices]
    for t in idx:
        if t.dtype == torch.bool:
            raise Unsupported("index_put with a boolean mask")
        _index_tensor(t, "index_put")
    k = len(idx)
    if k > v.rank:
        raise IndexError(f"too many indices for a tensor of dimension {v.rank}")
    if any(list(t.shape) != list(idx[0].shape) for t in idx[1:]):
        raise Unsupported("index_put with index tensors of different shapes")
    sizes = v.shape[:k]
    if k > 1 and any(isinstance(n, Dyn) for n in sizes):
        raise Unsupported("index_put with several index tensors along a dynamic size")
    if any(isinstance(n, Dyn) and expr_of(n) is None for n in sizes):
        raise Unsupported("index_put along a size the graph cannot compute")
    # (a negative index counts from the end, x[-1] += v; the scatter checks
    # the range of the wrapped one)
    linear = linear_index(tr, idx, sizes)
    rest = list(v.shape[k:])
    ishape = list(linear.shape)
    # One position per element of the index shape, and one row of x per
    # combination of the indexed dims.
    count = ishape[0] if len(ishape) == 1 else _known(
        tr, ishape, int(indices[0].numel()), product_expr(ishape))
    flat_index = _reshape_to(tr, linear, [count])
    base = v
    if k > 1:
        rows = 1
        for n in sizes:
            rows *= n
        base = _reshape_to(tr, v, [rows] + rest)
    val = tval(tr, values) if isinstance(values, torch.Tensor) else constant(tr, values, v.dtype)
    val = _broadcast_to(tr, convert(tr, val, v.dtype), ishape + rest)
    val = _reshape_to(tr, val, [count] + rest)
    out = scatter_add_value(tr, base, flat_index, val, 0)
    return out if k == 1 else _reshape_to(tr, out, list(v.shape))
