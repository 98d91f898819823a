"""``einsum`` as sums, permutations, reshapes and batched matmuls.

Operands are combined left to right. Before each step, a label that no
later operand and not the output reads is summed out of the operand that
has it alone; the two operands are then permuted to ``(batch, free,
contracted)`` and ``(batch, contracted, free)``, reshaped to three groups
and multiplied with ``tgc.matmul`` (its batch dims are the shared labels
still needed). The result is permuted to the output's order. Ellipses,
the implicit output (labels that appear once, in alphabetical order, after
the ellipsis dims) and dynamic sizes are supported; a label repeated in
one operand (a diagonal) and size-1 broadcasting between operands are
Unsupported calls (graph breaks)."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from .._graph import Dyn, Unsupported, Value, format_type
from .core import convert, merge_dims, op, product_expr, tval
from .reductions import sum_value
from .shapes import _known, _permute, _reshape_to

Labeled = Tuple[Value, List[str]]


def _parse(equation: str, ranks: Sequence[int]) -> Tuple[List[List[str]], List[str]]:
    eq = equation.replace(" ", "")
    lhs, rhs = (eq.split("->") + [None])[:2] if "->" in eq else (eq, None)
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise Unsupported("einsum: the equation names a different number of operands")
    ell_rank = max((r - (len(t) - 3) for t, r in zip(terms, ranks) if "..." in t), default=0)
    ell = [chr(0x100 + k) for k in range(ell_rank)]  # labels of the ellipsis dims

    def labels(term: str, rank: int) -> List[str]:
        if "..." in term:
            a, b = term.split("...")
            n = rank - len(a) - len(b)
            return list(a) + ell[ell_rank - n:] + list(b)
        if len(term) != rank:
            raise Unsupported("einsum: a subscript does not match its operand's rank")
        return list(term)

    ins = [labels(t, r) for t, r in zip(terms, ranks)]
    if rhs is None:
        counts: Dict[str, int] = {}
        for ls in ins:
            for c in ls:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and c not in ell)
    else:
        if "..." in rhs:
            a, b = rhs.split("...")
            out = list(a) + ell + list(b)
        else:
            out = list(rhs)
    for ls in ins:
        if len(set(ls)) != len(ls):
            raise Unsupported("einsum with a label repeated in one operand (a diagonal)")
    return ins, out


def _sum_out(tr, x: Labeled, keep: set, dtype) -> Labeled:
    v, ls = x
    dims = [i for i, c in enumerate(ls) if c not in keep]
    if not dims:
        return x
    return sum_value(tr, v, dims, dtype), [c for c in ls if c in keep]


def _group(tr, v: Value, ls: List[str], groups: List[List[str]]) -> Value:
    """`v` permuted to the groups' order and each group but the first
    (the batch labels, kept as they are) merged into one dim."""
    order = [c for g in groups for c in g]
    v = _permute(tr, v, [ls.index(c) for c in order])
    shape: List[Any] = list(v.shape[:len(groups[0])])
    merged: Dict[int, List[int]] = {}
    at = len(groups[0])
    hints = v.concrete()
    for g in groups[1:]:
        sizes = v.shape[at:at + len(g)]
        hint = 1
        for h in hints[at:at + len(g)]:
            hint *= h
        if len(g) == 1:
            shape.append(sizes[0])
        elif all(isinstance(s, int) for s in sizes):
            shape.append(hint)
        else:
            shape.append(_known(tr, sizes, hint, product_expr(sizes)))
        merged[len(shape) - 1] = list(range(at, at + len(g)))
        at += len(g)
    return _reshape_to(tr, v, shape, merged)


def _contract(tr, a: Labeled, b: Labeled, needed: set, dtype) -> Labeled:
    (va, la), (vb, lb) = a, b
    for c in set(la) & set(lb):
        sa, sb = va.shape[la.index(c)], vb.shape[lb.index(c)]
        if isinstance(sa, int) and isinstance(sb, int) and sa != sb:
            raise Unsupported("einsum with size-1 broadcasting between operands")
    batch = [c for c in la if c in lb and c in needed]
    contract = [c for c in la if c in lb and c not in needed]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    size_of = {c: va.shape[la.index(c)] for c in la}
    size_of.update({c: vb.shape[lb.index(c)] for c in lb if c not in size_of})
    ga = _group(tr, va, la, [batch, left, contract])
    gb = _group(tr, vb, lb, [batch, contract, right])
    hint_a = ga.concrete()
    nb = len(batch)
    bshape = [merge_dims([ga.shape[i], gb.shape[i]], hint_a[i]) for i in range(nb)]
    shape = bshape + [ga.shape[nb], gb.shape[nb + 1]]
    rt = format_type(dtype, shape)
    m = tr.graph.emit(f"tgc.matmul {ga.name}, {gb.name} : {ga.type}, {gb.type} -> {rt}",
                      [(dtype, shape)], tr.loc())[0]
    labels = batch + left + right
    full = bshape + [size_of[c] for c in left + right]
    if any(isinstance(s, Dyn) for s in full) or len(left) != 1 or len(right) != 1:
        m = _reshape_to(tr, m, full)
    return m, labels


@op("einsum")
def _einsum(tr, real, equation, *operands, **kw):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return einsum_values(tr, equation, [tval(tr, t) for t in operands], real.dtype)


@op("bilinear")
def _bilinear(tr, real, x1, x2, weight, bias=None):
    """y[..., o] = x1[..., i] W[o, i, j] x2[..., j] + b[o] (nn.Bilinear)."""
    from .elementwise import _binary_value

    dt = real.dtype
    out = einsum_values(tr, "...i,oij,...j->...o",
                        [tval(tr, x1), tval(tr, weight), tval(tr, x2)], dt)
    if bias is not None:
        out = _binary_value(tr, "add", out, convert(tr, tval(tr, bias), dt), dt)
    return out


def einsum_values(tr, equation: str, vals: List[Value], dtype) -> Value:
    """einsum of graph values, the result in `dtype`."""
    vals = [convert(tr, v, dtype) for v in vals]
    ins, out = _parse(equation, [v.rank for v in vals])
    if len(set(out)) != len(out):
        raise Unsupported("einsum with a repeated output label")
    ops: List[Labeled] = list(zip(vals, ins))
    cur: Labeled = None  # type: ignore[assignment]
    for i, x in enumerate(ops):
        later = set(out).union(*[set(ls) for _, ls in ops[i + 1:]])
        if cur is None:
            cur = _sum_out(tr, x, later, dtype)
            continue
        # What only one side has and nobody reads later is summed first.
        cur = _sum_out(tr, cur, later | set(x[1]), dtype)
        x = _sum_out(tr, x, later | set(cur[1]), dtype)
        cur = _contract(tr, cur, x, later, dtype)
    cur = _sum_out(tr, cur, set(out), dtype)
    v, ls = cur
    return _permute(tr, v, [ls.index(c) for c in out])


@op("_trilinear")
def _trilinear(tr, real, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """(i1.unsqueeze(expand1) * i2.unsqueeze(expand2) * i3.unsqueeze(expand3))
    summed over `sumdim` (ATen's definition; unroll_dim only orders its
    loop): an einsum with one label per dim."""
    vals = [tval(tr, t) for t in (i1, i2, i3)]
    total = vals[0].rank + len(expand1)
    if total > 26:
        raise Unsupported("_trilinear of more than 26 dims")
    labels = [chr(ord("a") + k) for k in range(total)]
    expands = [set(int(d) for d in e) for e in (expand1, expand2, expand3)]
    summed = set(int(d) for d in sumdim)
    if any(all(k in e for e in expands) and k not in summed for k in range(total)):
        raise Unsupported("_trilinear with a dim no operand has")
    terms = ["".join(labels[k] for k in range(total) if k not in e) for e in expands]
    out = "".join(labels[k] for k in range(total) if k not in summed)
    return einsum_values(tr, f"{','.join(terms)}->{out}", vals, real.dtype)
