"""Shape and indexing operators: reshape and views, permutations, squeeze
and unsqueeze, expand, slicing and indexing, cat and stack, gathers,
embedding, padding."""

from __future__ import annotations

import math
import operator

import torch
from typing import Any, Dict, List, Optional

from .._graph import Dyn, Unsupported, Value, format_type, scalar_literal, size_value
from .._sym import SymInt
from .._trace import Tracer
from .core import (
    convert,
    derived,
    expr_of,
    merge_dims,
    norm_dim,
    op,
    product_expr,
    sum_expr,
    sym_tensor,
    tval,
)


def _known(tr: Tracer, sizes, value: int, expr):
    """A size derived from `sizes`, with its expression of the input sizes
    when known (one Dyn per expression): Python decisions on it are then
    relation guards, not specializations."""
    return (expr is not None and tr.dyn_by_expr.get(expr)) or derived(sizes, value, expr)


def _sizes_arg(tr: Tracer, args) -> List[Any]:
    """Size arguments (`*sizes` or one sequence) as graph sizes: ints, and
    the Dyn of each SymInt."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        args = tuple.__iter__(args[0]) if isinstance(args[0], tuple) else args[0]
    return [tr.dyn_for(a) for a in args]


def _index_value(tr: Tracer, v: Value, dim: int) -> str:
    """An index SSA value holding the size of `dim` of `v`."""
    c = tr.graph.fresh()
    s = v.shape[dim]
    if isinstance(s, int):
        tr.graph.lines.append(f"{c} = arith.constant {s} : index")
        return c
    tr.graph.lines.append(f"{c} = arith.constant {dim} : index")
    d = tr.graph.fresh()
    tr.graph.lines.append(f"{d} = tensor.dim {v.name}, {c} : {v.type}")
    return d


def _index_op(tr: Tracer, op: str, a: str, b: str) -> str:
    r = tr.graph.fresh()
    tr.graph.lines.append(f"{r} = arith.{op} {a}, {b} : index")
    return r


def _reshape_to(tr: Tracer, v: Value, shape: List[Any], merged=None) -> Value:
    """Reshapes `v`. With several dynamic result sizes, each is passed as
    an index value: a size of `v` it keeps, the product of the sizes it
    merges (`merged`: result position -> input dims), or the element count
    divided by the other sizes."""
    if [s for s in shape] == v.shape:
        return v
    rt = format_type(v.dtype, shape)
    dyn = [i for i, s in enumerate(shape) if isinstance(s, Dyn)]
    # One `?` is inferred from the element count, unless a static size is 0
    # (any size would do: (B, 0) to (B, -1, 2)); then it is passed too.
    if len(dyn) <= 1 and not (dyn and 0 in shape):
        return tr.graph.emit(f"tgc.reshape {v.name} : {v.type} -> {rt}", [(v.dtype, shape)], tr.loc())[0]
    merged = merged or {}
    sizes: Dict[int, str] = {}
    unknown = []
    for p in dyn:
        if p in merged:
            acc = None
            for j in merged[p]:
                x = _index_value(tr, v, j)
                acc = x if acc is None else _index_op(tr, "muli", acc, x)
            sizes[p] = acc
            continue
        j = next((j for j, s in enumerate(v.shape) if s is shape[p]), None)
        if j is not None:
            sizes[p] = _index_value(tr, v, j)
        elif shape[p].expr is not None:
            sizes[p] = tr.index_of(shape[p])
        else:
            unknown.append(p)
    if len(unknown) > 1:
        raise Unsupported("a reshape with several new dynamic sizes")
    if unknown:
        total = None
        for j in range(v.rank):
            x = _index_value(tr, v, j)
            total = x if total is None else _index_op(tr, "muli", total, x)
        for p, s in enumerate(shape):
            if p == unknown[0]:
                continue
            if isinstance(s, int):
                c = tr.graph.fresh()
                tr.graph.lines.append(f"{c} = arith.constant {s} : index")
                total = _index_op(tr, "divsi", total, c)
            else:
                total = _index_op(tr, "divsi", total, sizes[p])
        sizes[unknown[0]] = total
    operands = ", ".join(sizes[p] for p in dyn)
    return tr.graph.emit(
        f"tgc.reshape {v.name} [{operands}] : {v.type} -> {rt}", [(v.dtype, shape)], tr.loc()
    )[0]


@op("_reshape_alias", symbolic=True)
def _reshape_alias(tr, real, x, size, stride=None):
    """aten._reshape_alias(x, size, stride): what reshape becomes in
    PyTorch 1.13's make_fx graphs (training, tgc._autograd) where a view is
    possible. The strides describe x's memory, which TGC's values do not
    have: it is the reshape to `size` (the strides are not used)."""
    return _reshape(tr, real, x, size)


@op("reshape", "view", "_unsafe_view", symbolic=True)
def _reshape(tr, real, x, *sizes, **kw):
    v = tval(tr, x)
    if "shape" in kw:
        sizes = (kw["shape"],)
    if len(sizes) == 1 and isinstance(sizes[0], torch.dtype):
        raise Unsupported("view(dtype)")
    target = _sizes_arg(tr, sizes)
    shape: List[Any] = []
    for i, s in enumerate(target):
        if isinstance(s, int) and s == -1:
            # The element count over the other sizes.
            numel = product_expr(v.shape)
            others = product_expr([t for t in target if not (isinstance(t, int) and t == -1)])
            expr = numel.floordiv(others) if numel is not None and others is not None else None
            if expr is not None and expr.constant() is not None:
                shape.append(expr.constant())
            elif expr is not None and expr in tr.dyn_by_expr:
                shape.append(tr.dyn_by_expr[expr])
            else:
                shape.append(derived(v.shape, real.shape[i], expr))
        else:
            shape.append(s)
    return _reshape_to(tr, v, shape)


@op("flatten")
def _flatten(tr, real, x, start_dim=0, end_dim=-1):
    v = tval(tr, x)
    if v.rank == 0:
        return _reshape_to(tr, v, [1])
    s, e = norm_dim(start_dim, v.rank), norm_dim(end_dim, v.rank)
    merged = _known(tr, v.shape[s : e + 1], real.shape[s], product_expr(v.shape[s : e + 1]))
    return _reshape_to(
        tr, v, v.shape[:s] + [merged] + v.shape[e + 1 :], {s: list(range(s, e + 1))}
    )


@op("unflatten", symbolic=True)
def _unflatten(tr, real, x, dim, sizes):
    v = tval(tr, x)
    d = norm_dim(dim, v.rank)
    target = _sizes_arg(tr, (sizes,))
    known = product_expr([t for t in target if not (isinstance(t, int) and t == -1)])
    new = []
    for i, t in enumerate(target):
        if isinstance(t, int) and t == -1:
            e = expr_of(v.shape[d])
            expr = e.floordiv(known) if e is not None and known is not None else None
            if expr is not None and expr.constant() is not None:
                new.append(expr.constant())
            else:
                new.append(tr.dyn_by_expr.get(expr) if expr is not None and expr in tr.dyn_by_expr
                           else derived([v.shape[d]], real.shape[d + i], expr))
        else:
            new.append(t)
    return _reshape_to(tr, v, v.shape[:d] + new + v.shape[d + 1 :])


@op("view_as", "reshape_as")
def _view_as(tr, real, x, other):
    return _reshape_to(tr, tval(tr, x), list(tval(tr, other).shape))


def _permute(tr: Tracer, v: Value, perm: List[int]) -> Value:
    if perm == list(range(v.rank)):
        return v
    shape = [v.shape[p] for p in perm]
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(f"tgc.permute {v.name} {list(perm)} : {v.type} -> {rt}", [(v.dtype, shape)], tr.loc())[0]


@op("permute")
def _permute_h(tr, real, x, *dims, **kw):
    v = tval(tr, x)
    dims = kw.get("dims", dims)
    perm = [norm_dim(d, v.rank) for d in _sizes_arg(tr, dims)]
    return _permute(tr, v, perm)


@op("transpose")
def _transpose(tr, real, x, dim0=None, dim1=None, axis0=None, axis1=None):
    # transpose(dim0=, dim1=); swapaxes(axis0=, axis1=) is its alias
    d0 = axis0 if dim0 is None else dim0
    d1 = axis1 if dim1 is None else dim1
    v = tval(tr, x)
    perm = list(range(v.rank))
    a, b = norm_dim(d0, v.rank), norm_dim(d1, v.rank)
    perm[a], perm[b] = perm[b], perm[a]
    return _permute(tr, v, perm)


@op("t", "T", "numpy_T")
def _t(tr, real, x):
    v = tval(tr, x)
    return _permute(tr, v, list(reversed(range(v.rank))))


@op("mT")
def _mT(tr, real, x):
    return _transpose(tr, real, x, -2, -1)


@op("movedim")
def _movedim(tr, real, x, source, destination):  # (moveaxis: its alias)
    src, dst = source, destination
    v = tval(tr, x)
    src = [src] if isinstance(src, int) else list(src)
    dst = [dst] if isinstance(dst, int) else list(dst)
    src = [norm_dim(s, v.rank) for s in src]
    dst = [norm_dim(d, v.rank) for d in dst]
    perm = [-1] * v.rank
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(i for i in range(v.rank) if i not in src)
    perm = [p if p >= 0 else next(rest) for p in perm]
    return _permute(tr, v, perm)


def _unsqueeze(tr, v: Value, d: int) -> Value:
    shape = v.shape[:d] + [1] + v.shape[d:]
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(f"tgc.unsqueeze {v.name} dim = {d} : {v.type} -> {rt}", [(v.dtype, shape)], tr.loc())[0]


@op("unsqueeze")
def _unsqueeze_h(tr, real, x, dim):
    v = tval(tr, x)
    return _unsqueeze(tr, v, norm_dim(dim, v.rank + 1))


@op("squeeze")
def _squeeze(tr, real, x, dim=None):
    v = tval(tr, x)
    if dim is None:
        dims = [i for i, s in enumerate(v.shape) if isinstance(s, int) and s == 1]
        for i, s in enumerate(v.shape):
            if isinstance(s, Dyn) and s.value == 1:
                tr.specialize(s, "squeeze() of a size that is 1")
    else:
        ds = [dim] if isinstance(dim, int) else list(dim)
        dims = []
        for d in ds:
            d = norm_dim(d, v.rank)
            s = v.shape[d]
            if isinstance(s, Dyn):
                if s.value == 1:
                    tr.specialize(s, "squeeze() of a size that is 1")
                # A size > 1 stays: squeeze is a no-op there; but the size
                # could be 1 on a later call. Specialize to be sound.
                tr.specialize(s, "squeeze(dim) of a dynamic size")
            if s == 1:
                dims.append(d)
    if not dims:
        return v
    shape = [s for i, s in enumerate(v.shape) if i not in dims]
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(f"tgc.squeeze {v.name} dims {sorted(dims)} : {v.type} -> {rt}", [(v.dtype, shape)], tr.loc())[0]


@op("expand", "broadcast_to", symbolic=True)
def _expand(tr, real, x, *sizes, **kw):
    target = _sizes_arg(tr, (kw["size"],) if "size" in kw else sizes)
    return _expand_to(tr, tval(tr, x), target)


def _expand_to(tr, v: Value, target: List[Any]) -> Value:
    """`v` broadcast to `target` (ints, -1 and Dyns)."""
    lead = len(target) - v.rank
    shape: List[Any] = []
    operands: List[str] = []
    for i, s in enumerate(target):
        src = v.shape[i - lead] if i >= lead else None
        if isinstance(s, int) and s == -1:
            shape.append(src)
        elif isinstance(src, Dyn) and (s is src or (isinstance(s, int) and s == src.value
                                                     and s != 1)):
            shape.append(src)  # keeps the input's size
        elif isinstance(s, Dyn) and isinstance(src, Dyn):
            # Another expression for the input's size: PyTorch requires
            # them equal, so the input's size is the result's.
            shape.append(src)
        else:
            shape.append(s)
            if isinstance(s, Dyn):
                operands.append(tr.index_of(s))  # a new size (src is 1 or absent)
    if shape == v.shape:
        return v
    rt = format_type(v.dtype, shape)
    ops = f" [{', '.join(operands)}]" if operands else ""
    return tr.graph.emit(f"tgc.expand {v.name}{ops} : {v.type} -> {rt}", [(v.dtype, shape)],
                         tr.loc())[0]


@op("expand_as")
def _expand_as(tr, real, x, other):
    # other's sizes, Dyns included: a dynamic size the input broadcasts to
    # is an operand of tgc.expand (it had none: IR that did not verify).
    return _expand_to(tr, tval(tr, x), list(tval(tr, other).shape))


# tgc.slice's "to the end" (INT64_MAX: exact for symbolic sizes too).
_TO_END = 2**63 - 1


def _iota(tr: Tracer, start: int, n, dtype=torch.int64) -> Value:
    """start, start + 1, ... (`n` values: an int or a Dyn)."""
    from .._graph import mlir_dtype

    dt = mlir_dtype(dtype)
    ops = f" [{tr.index_of(n)}]" if isinstance(n, Dyn) else ""
    rt = format_type(dtype, [n])
    return tr.graph.emit(
        f"tgc.iota {scalar_literal(start, dtype)} : {dt}, {scalar_literal(1, dtype)} : {dt}{ops} : {rt}",
        [(dtype, [n])], tr.loc())[0]


def _symbolic_slice(tr: Tracer, v: Value, d: int, start, end, step) -> Optional[Value]:
    """x[start:end] along `d` where a bound is a SymInt, without turning it
    into a number: guarded in range (so that PyTorch's clamping does not
    apply), then a slice to the end, or a gather of an iota. None when the
    bounds are not of these forms (the caller specializes them)."""
    from .._sym import Expr, SymInt

    size_e = expr_of(v.shape[d])
    if step != 1 or size_e is None:
        return None
    start = 0 if start is None else start
    start_e = start.expr if isinstance(start, SymInt) else Expr.const(start)
    end_e = size_e if end is None else (end.expr if isinstance(end, SymInt) else Expr.const(end))
    if start_e.opaque() or end_e.opaque():
        return None
    if not (isinstance(start, int) and start >= 0 or isinstance(start, SymInt)):
        return None
    if not (tr.guard_compare(start_e, 0, operator.ge, "slice start")
            and tr.guard_compare(start_e, end_e, operator.le, "slice bounds")
            and tr.guard_compare(end_e, size_e, operator.le, "slice end")):
        return None
    n_e = end_e - start_e
    n = n_e.constant()
    if n == 0:
        # Always empty (x[T:] with T the size): "the last 0" below would
        # have been a slice from 0, the whole dim.
        return _slice(tr, v, d, 0, 0, 1)
    size = n if n is not None else tr.dyn_for(SymInt(tr, n_e, n_e.evaluate(tr.hint_size)))
    shape = list(v.shape)
    shape[d] = size
    if end_e == size_e and isinstance(start, int):
        rt = format_type(v.dtype, shape)
        return tr.graph.emit(
            f"tgc.slice {v.name} dim = {d} start = {start} end = {_TO_END} step = 1 : {v.type} -> {rt}",
            [(v.dtype, shape)], tr.loc())[0]
    if isinstance(start, int):
        index = _iota(tr, start, size)
    elif n is not None:
        # The last n of 0 .. end-1.
        upto = tr.dyn_for(SymInt(tr, end_e, end_e.evaluate(tr.hint_size)))
        full = _iota(tr, 0, upto)
        rt = format_type(torch.int64, [n])
        index = tr.graph.emit(
            f"tgc.slice {full.name} dim = 0 start = {-n} end = {_TO_END} step = 1 : {full.type} -> {rt}",
            [(torch.int64, [n])], tr.loc())[0]
    else:
        return None
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(
        f"tgc.index_select {v.name}, {index.name} dim = {d} : {v.type}, {index.type} -> {rt}",
        [(v.dtype, shape)], tr.loc())[0]


def _static_slice_length(start: int, end: int, step: int) -> Optional[int]:
    """The length of x[start:end:step] when it is the same for every size
    a dynamic dim can have (>= 2), e.g. x[:1], x[-1:]; else None. The
    length is piecewise linear in the size with breaks at |start| and
    |end|: every size up to past the last break, and a huge one, decide."""
    bound = max(abs(start), abs(end) if end != _TO_END else 0) + 3
    if bound > 70:
        return None
    lengths = {len(range(*slice(start, end, step).indices(n)))
               for n in list(range(2, bound + 1)) + [2**40]}
    return lengths.pop() if len(lengths) == 1 else None


def _slice(tr, v: Value, d: int, start, end, step: int) -> Value:
    from .._sym import SymInt

    if isinstance(step, SymInt):
        step = int(step)
    if isinstance(start, SymInt) or isinstance(end, SymInt):
        out = _symbolic_slice(tr, v, d, start, end, step)
        if out is not None:
            return out
        start = None if start is None else int(start)
        end = None if end is None else int(end)
    s = v.shape[d]
    if step <= 0:
        raise Unsupported("a slice with a non-positive step")
    start = 0 if start is None else int(start)
    to_end = end is None
    end = _TO_END if to_end else int(end)
    if isinstance(s, int):
        n = len(range(*slice(start, end, step).indices(s)))
        size: Any = n
        if n == s:
            return v
    else:
        if start == 0 and to_end and step == 1:
            return v  # x[:] of a dynamic size
        n = len(range(*slice(start, end, step).indices(s.value)))
        size = n if _static_slice_length(start, end, step) == n else Dyn(s.sources, n)
    shape = list(v.shape)
    shape[d] = size
    rt = format_type(v.dtype, shape)
    end_attr = end if to_end else min(end, 2**62)
    return tr.graph.emit(
        f"tgc.slice {v.name} dim = {d} start = {start} end = {end_attr} step = {step} : {v.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]


def _select(tr, v: Value, d: int, index: int) -> Value:
    end = None if index == -1 else index + 1
    s = _slice(tr, v, d, index, end, 1)
    shape = s.shape[:d] + s.shape[d + 1 :]
    # The slice has size 1 wherever the index is valid; the reshape's
    # element-count guard rejects sizes where it is not.
    return _reshape_to(tr, s, shape)


def _concat_values(tr, parts: List[Value], d: int, like: Optional[Value] = None) -> Value:
    """`parts` concatenated along `d` (the size there their sum's
    expression); the other sizes are `like`'s, or the parts' merged."""
    if len(parts) == 1:
        return parts[0]
    hints = [p.concrete() for p in parts]
    sizes = [p.shape[d] for p in parts]
    if like is not None:
        shape = list(like.shape)
    else:
        shape = [merge_dims([p.shape[i] for p in parts], hints[0][i])
                 for i in range(parts[0].rank)]
    shape[d] = _known(tr, sizes, sum(h[d] for h in hints), sum_expr(sizes))
    dtype = parts[0].dtype
    rt = format_type(dtype, shape)
    names = ", ".join(p.name for p in parts)
    types = ", ".join(p.type for p in parts)
    return tr.graph.emit(f"tgc.concat {names} dim = {d} : ({types}) -> {rt}",
                         [(dtype, shape)], tr.loc())[0]


def record_view(tr, real, x, index, recompute) -> None:
    """Records `real`, x[index] made by a view operator, as a view of `x`:
    `recompute()` makes it again from x's value (after x is updated in
    place: core.refresh_aliases) and, for integers and step-1 slices along
    static sizes, an update of it is written into x (core._assign) the way
    x[index] = value is (movement._write_box). Symbolic bounds are not
    read (that would specialize them): no writer then."""
    from .core import _has_sym
    from .movement import _box, _write_box

    if not isinstance(real, torch.Tensor) or real._base is None:
        return
    writer = None
    if not _has_sym(index):
        base = tval(tr, x)
        try:
            box = _box(base, index)
        except Unsupported:
            box = None
        if box is not None:
            shape = [(hi - lo) if hi is not None else base.shape[d]
                     for d, (lo, hi, _) in enumerate(box)]

            def writer(bv: Value, val: Value) -> Value:
                return _write_box(tr, bv, box, _reshape_to(tr, val, shape))

    tr.views[id(real)] = (real, x, recompute, writer)


@op("select")
def _select_h(tr, real, x, dim, index):
    v = tval(tr, x)
    d = norm_dim(dim, v.rank)
    out = _select(tr, v, d, int(index))
    record_view(tr, real, x, (slice(None),) * d + (int(index),),
                lambda: _select(tr, tval(tr, x), d, int(index)))
    return out


@op("slice", symbolic=True)
def _slice_h(tr, real, x, dim=0, start=None, end=None, step=1):
    v = tval(tr, x)
    d = norm_dim(int(dim), v.rank)
    out = _slice(tr, v, d, start, end, step)
    if type(step) is int and step == 1:
        record_view(tr, real, x, (slice(None),) * d + (slice(start, end),),
                    lambda: _slice(tr, tval(tr, x), d, start, end, 1))
    return out


@op("narrow", symbolic=True)
def _narrow(tr, real, x, dim, start, length):
    v = tval(tr, x)
    d = norm_dim(int(dim), v.rank)
    if start < 0:
        raise Unsupported("narrow with a negative start")
    out = _slice(tr, v, d, start, start + length, 1)
    record_view(tr, real, x, (slice(None),) * d + (slice(start, start + length),),
                lambda: _slice(tr, tval(tr, x), d, start, start + length, 1))
    return out


def _advanced_index(tr, real, v: Value, index) -> Value:
    """x[..., idx, ...] with one integer index tensor (any shape) among
    basic items: the basic items first (the tensor's dim kept whole), then
    a gather along that dim, whose place the index's dims take (PyTorch's
    rule for a single advanced index). Negative indices wrap."""
    from .composite import _gather_values

    tensors = [k for k, i in enumerate(index) if isinstance(i, torch.Tensor)]
    if len(tensors) > 1:
        return _multi_index(tr, real, v, index, tensors)
    k = tensors[0]
    idx = index[k]
    if idx.dtype not in (torch.int64, torch.int32):
        raise Unsupported("indexing with a boolean mask (a data-dependent size)")
    if Ellipsis in index[:k] or any(i is None for i in index[:k]):
        raise Unsupported("advanced indexing after None or ... ")
    basic = index[:k] + (slice(None),) + index[k + 1:]
    # The indexed dim's position after the basic items before it (ints
    # remove their dim).
    d = sum(1 for i in index[:k] if isinstance(i, slice))
    base = _getitem(tr, real, _ValueBox(v), basic)
    return _gather_values(tr, base, d, tr.value_of(idx), real)


def _multi_index(tr, real, v: Value, index, tensors: List[int]) -> Value:
    """x[..., i, j, ...] with several integer index tensors: the basic items
    first, then the indexed dims (static or dynamic sizes) flattened into one
    and gathered by the linear index ((i * n1 + j) * n2 + ...), negative
    entries wrapped and index shapes broadcast. Adjacent index tensors put the
    result's index dims in their place; separated ones put them first
    (PyTorch's rule)."""
    from .composite import _gather_values

    if any(index[k].dtype not in (torch.int64, torch.int32) for k in tensors):
        raise Unsupported("indexing with a boolean mask among several indices")
    first = tensors[0]
    if Ellipsis in index[:first] or any(i is None for i in index):
        raise Unsupported("advanced indexing with None or an ellipsis before the tensors")
    if any(isinstance(index[k], (int, SymInt)) for k in range(first, tensors[-1])):
        raise Unsupported("advanced indexing with integers between the index tensors")
    adjacent = tensors == list(range(first, tensors[-1] + 1))
    basic = tuple(slice(None) if k in tensors else i for k, i in enumerate(index))
    base = _getitem(tr, real, _ValueBox(v), basic)
    # Dims of `base` that the tensors index (ints before them removed theirs).
    def pos(k):
        return sum(1 for i in basic[:k] if not isinstance(i, (int, SymInt)))
    dims = [pos(k) for k in tensors]
    if not adjacent:
        rest = [d for d in range(base.rank) if d not in dims]
        base = _permute(tr, base, dims + rest)
        dims = list(range(len(dims)))
    sizes = [base.shape[d] for d in dims]
    if any(isinstance(n, Dyn) and (expr_of(n) is None or expr_of(n).opaque()) for n in sizes):
        raise Unsupported("advanced indexing with several tensors along a dynamic size "
                          "the graph cannot express")
    linear = linear_index(tr, [tr.value_of(index[k]) for k in tensors], sizes)
    d0 = dims[0]
    total = _known(tr, sizes, math.prod(size_value(n) for n in sizes), product_expr(sizes))
    flat = _reshape_to(tr, base, list(base.shape[:d0]) + [total] +
                       list(base.shape[d0 + len(dims):]), {d0: list(range(d0, d0 + len(dims)))})
    return _gather_values(tr, flat, d0, linear, real)


def linear_index(tr, indices: List[Value], sizes: List[Any]) -> Value:
    """(i * n1 + j) * n2 + ... of integer index values along dims of
    `sizes` (ints, or Dyns the graph can express), negative entries wrapped
    and shapes broadcast. With several, an entry out of its own dim's range
    would land on another element of the flattened dims (x[0, 5] of a 3 x 4
    tensor is x[1, 1]; eager raises IndexError): such a position is made one
    the gather's or scatter's range check rejects."""
    from .elementwise import _binary_value, _where_values
    from .core import constant

    i64 = torch.int64
    linear = bad = None
    for idx, n in zip(indices, sizes):
        nv = constant(tr, n, i64) if isinstance(n, int) else sym_tensor(tr, expr_of(n))
        idx = convert(tr, idx, i64)
        neg = _binary_value(tr, "cmp lt,", idx, constant(tr, 0, i64), torch.bool)
        idx = _where_values(tr, neg, _binary_value(tr, "add", idx, nv, i64), idx, i64)
        if len(indices) > 1:
            out = _binary_value(
                tr, "logical_or", _binary_value(tr, "cmp lt,", idx, constant(tr, 0, i64), torch.bool),
                _binary_value(tr, "cmp ge,", idx, nv, torch.bool), torch.bool)
            bad = out if bad is None else _binary_value(tr, "logical_or", bad, out, torch.bool)
        linear = idx if linear is None else _binary_value(
            tr, "add", _binary_value(tr, "mul", linear, nv, i64), idx, i64)
    if bad is not None:
        linear = _where_values(tr, bad, constant(tr, 2**63 - 1, i64), linear, i64)
    return linear


class _ValueBox:
    """A traced Value where _getitem expects a tensor (internal)."""

    def __init__(self, v):
        self.v = v


@op("index")
def _aten_index(tr, real, x, indices):
    # aten.index: None entries are whole dims.
    return _getitem(tr, real, x, tuple(slice(None) if i is None else i for i in indices))


def _list_index(tr, item) -> torch.Tensor:
    """A list inside an index (`qkv[:, :, [-2]]`, HF Falcon's key heads) is
    an index tensor to PyTorch: a constant of the graph here, bound to a
    tensor that stands for it. A 1-d list of bools is the positions of its
    Trues (a constant mask)."""
    from .factories import dense_constant

    def plain(e):
        return isinstance(e, (bool, int)) or (isinstance(e, list) and all(plain(i) for i in e))

    if not plain(item):
        raise Unsupported("indexing with a list of other than Python ints or bools")
    t = torch.tensor(item)
    if t.dtype == torch.bool:
        if t.dim() != 1:
            raise Unsupported("indexing with a nested list of bools")
        t = torch.arange(t.numel())[t]
    tr.bind(t, dense_constant(tr, t))
    return t


@op("__getitem__", symbolic=True)
def _getitem(tr, real, x, index):
    v = x.v if isinstance(x, _ValueBox) else tval(tr, x)
    if isinstance(index, list):  # (PyTorch 2.x; 1.13's is routed as a tuple already)
        from .._trace_patches import _routed_index

        index = _routed_index(index)
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, list) for i in index):
        index = tuple(_list_index(tr, i) if isinstance(i, list) else i for i in index)
    if any(isinstance(i, bool) for i in index):
        # A Python bool is no integer here: x[True] is x[None] (a new dim of
        # size 1) and x[False] an empty one (it was read as x[1] and x[0]).
        if any(i is False for i in index) or any(isinstance(i, torch.Tensor) for i in index):
            raise Unsupported("indexing with False, or with a bool among index tensors")
        index = tuple(None if isinstance(i, bool) else i for i in index)
    if Ellipsis in index and not any(isinstance(i, torch.Tensor) and i.dtype == torch.bool
                                     for i in index):
        # (an integer index tensor takes one dim, as an int or a slice does)
        k = index.index(Ellipsis)
        used = sum(1 for i in index if i is not None and i is not Ellipsis)
        index = index[:k] + (slice(None),) * (v.rank - used) + index[k + 1 :]
    if any(isinstance(i, torch.Tensor) for i in index):
        return _advanced_index(tr, real, v, index)
    d = 0
    for item in index:
        if item is None:
            v = _unsqueeze(tr, v, d)
            d += 1
        elif isinstance(item, slice):
            v = _slice(tr, v, d, item.start, item.stop, item.step or 1)
            d += 1
        elif isinstance(item, (int, SymInt)):
            v = _select(tr, v, d, int(item))
        else:
            raise Unsupported(f"indexing with {type(item).__name__}")
    if not isinstance(x, _ValueBox):
        record_view(tr, real, x, index, lambda: _getitem(tr, real, x, index))
    return v


@op("cat")
def _cat(tr, real, tensors, dim=0):
    vals = [convert(tr, tval(tr, t), real.dtype) for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)]
    return _concat_values(tr, vals, norm_dim(dim, vals[0].rank))


@op("stack")
def _stack(tr, real, tensors, dim=0):
    vals = [convert(tr, tval(tr, t), real.dtype) for t in tensors]
    d = norm_dim(dim, vals[0].rank + 1)
    parts = [_unsqueeze(tr, v, d) for v in vals]
    if len(parts) == 1:
        return parts[0]
    shape = [merge_dims([p.shape[i] for p in parts], real.shape[i]) for i in range(parts[0].rank)]
    shape[d] = len(parts)
    rt = format_type(real.dtype, shape)
    names = ", ".join(p.name for p in parts)
    types = ", ".join(p.type for p in parts)
    return tr.graph.emit(f"tgc.concat {names} dim = {d} : ({types}) -> {rt}", [(real.dtype, shape)], tr.loc())[0]


def _split_dim(tr, v: Value, dim) -> int:
    """The dim a split cuts: its size decides how many pieces Python gets,
    so a dynamic size there is specialized."""
    d = norm_dim(int(dim), v.rank)
    tr.specialize(v.shape[d], "split/chunk/unbind of a dynamic dim (the number of pieces)")
    return d


def _pieces(tr, v: Value, d: int, sizes) -> List[Value]:
    out, start = [], 0
    for n in sizes:
        out.append(_slice(tr, v, d, start, start + n, 1))
        start += n
    return out


@op("split", "split_with_sizes")
def _split(tr, real, x, split_size_or_sections, dim=0):
    v = tval(tr, x)
    d = _split_dim(tr, v, dim)
    # The pieces' sizes as PyTorch cut them (an int size leaves a shorter last one).
    return _pieces(tr, v, d, [int(t.shape[d]) for t in real])


@op("chunk", "tensor_split")
def _chunk(tr, real, x, chunks, dim=0):
    v = tval(tr, x)
    if not isinstance(chunks, int):
        raise Unsupported("tensor_split at given indices")
    d = _split_dim(tr, v, dim)
    return _pieces(tr, v, d, [int(t.shape[d]) for t in real])


@op("unbind")
def _unbind(tr, real, x, dim=0):
    v = tval(tr, x)
    d = _split_dim(tr, v, dim)
    return [_select(tr, v, d, i) for i in range(len(real))]


@op("index_select")
def _index_select(tr, real, x, dim, index):
    v, i = tval(tr, x), tval(tr, index)
    d = norm_dim(dim, v.rank)
    shape = list(v.shape)
    shape[d] = i.shape[0] if i.rank == 1 else 1
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(
        f"tgc.index_select {v.name}, {i.name} dim = {d} : {v.type}, {i.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]


@op("gather")
def _gather(tr, real, x, dim, index, sparse_grad=False):
    v, i = tval(tr, x), tval(tr, index)
    d = norm_dim(dim, v.rank)
    rt = format_type(v.dtype, i.shape)
    return tr.graph.emit(
        f"tgc.gather {v.name}, {i.name} dim = {d} : {v.type}, {i.type} -> {rt}",
        [(v.dtype, list(i.shape))], tr.loc(),
    )[0]


@op("embedding")
def _embedding(tr, real, a, b, *rest, **kw):
    # F.embedding(input, weight); aten.embedding(weight, indices).
    if a.dtype.is_floating_point:
        weight, ids = a, b
    else:
        ids, weight = a, b
        max_norm = rest[1] if len(rest) > 1 else kw.get("max_norm")
        if max_norm is not None:
            # (F.embedding renormalizes the weight's rows in place first)
            raise Unsupported("embedding with max_norm (it renormalizes the weight in place)")
    w, i = tval(tr, weight), tval(tr, ids)
    shape = list(i.shape) + [w.shape[1]]
    rt = format_type(w.dtype, shape)
    return tr.graph.emit(
        f"tgc.embedding {w.name}, {i.name} : {w.type}, {i.type} -> {rt}",
        [(w.dtype, shape)], tr.loc(),
    )[0]


@op("constant_pad_nd")
def _constant_pad_nd(tr, real, x, pad, value=0):
    """aten.constant_pad_nd(x, pad, value): F.pad's constant mode, whose
    third argument is the value, not a mode (a training graph's label
    padding, `F.pad(labels, (0, 1), value=-100)`, was a graph break)."""
    return _pad(tr, real, x, pad, "constant", value)


@op("pad")
def _pad(tr, real, x, pad, mode="constant", value=None):
    if mode in ("reflect", "replicate", "circular"):
        from .composite import padded

        return padded(tr, x, pad, mode)
    if mode != "constant":
        raise Unsupported(f"pad(mode={mode!r})")
    v = tval(tr, x)
    pad = list(pad)
    low = [0] * v.rank
    high = [0] * v.rank
    for i in range(len(pad) // 2):
        d = v.rank - 1 - i
        low[d], high[d] = int(pad[2 * i]), int(pad[2 * i + 1])
    return pad_value(tr, v, low, high, value or 0)


def pad_value(tr, v: Value, low: List[int], high: List[int], value=0) -> Value:
    """`v` padded with `value` by low[d] before and high[d] after each dim
    (sizes keep their expressions)."""
    if min(low + high) < 0:
        raise Unsupported("negative padding")
    if not any(low + high):
        return v
    hints = v.concrete()
    shape = [s + low[i] + high[i] if isinstance(s, int) else
             _known(tr, [s], hints[i] + low[i] + high[i],
                    None if expr_of(s) is None else expr_of(s) + low[i] + high[i])
             for i, s in enumerate(v.shape)]
    rt = format_type(v.dtype, shape)
    from .._graph import typed_literal

    val = typed_literal(value, v.dtype)
    return tr.graph.emit(
        f"tgc.pad {v.name} low {low} high {high} value {val} : {v.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]
