"""Operators that are short formulas of other ``tgc`` ops, computed the way
PyTorch's kernels compute them: ``lerp`` (two forms chosen by the weight,
as ATen does, for exact end points), ``cross``/``linalg_cross`` (three
differences of products, broadcast), ``kl_div`` (``xlogy`` with 0 where
the target is 0, each reduction), ``cumsum`` (a log-step scan), ``prod``
(log-step halvings), ``sign``/``sgn`` ((0 < x) - (x < 0), as ATen),
``addcmul``/``addcdiv`` (the association of ATen's CPU and CUDA kernels,
in the op-math type: float for half precision)."""

from __future__ import annotations

import torch

from .._graph import Unsupported, Value
from .core import as_value, constant, convert, norm_dim, op, tval
from .elementwise import _binary_value, _where_values
from .shapes import _concat_values, _select, _unsqueeze


def _b(tr, mnemonic: str, a: Value, b: Value, dtype) -> Value:
    return _binary_value(tr, mnemonic, a, b, dtype)


@op("lerp")
def _lerp(tr, real, start, end, weight):
    """ATen: |w| < 0.5 ? start + w * (end - start) : end - (end - start) * (1 - w)."""
    dt = real.dtype
    if not dt.is_floating_point:
        raise Unsupported(f"lerp of {dt} tensors")
    a, b, w = as_value(tr, start, dt), as_value(tr, end, dt), as_value(tr, weight, dt)
    diff = _b(tr, "sub", b, a, dt)
    lo = _b(tr, "add", a, _b(tr, "mul", w, diff, dt), dt)
    hi = _b(tr, "sub", b, _b(tr, "mul", diff, _b(tr, "sub", constant(tr, 1, dt), w, dt), dt), dt)
    aw = tr.graph.emit(f"tgc.abs {w.name} : {w.type}", [(dt, w.shape)], tr.loc())[0]
    small = _b(tr, "cmp lt,", aw, constant(tr, 0.5, dt), torch.bool)
    return _where_values(tr, small, lo, hi, dt)


def _addc(tr, real, mnemonic: str, x, t1, t2, value):
    """x + value * t1 * t2 (addcmul) or x + value * t1 / t2 (addcdiv),
    computed as ATen computes it: in float for f16/bf16 (one rounding at
    the end), addcmul as (value * t1) * t2 on every device, addcdiv as
    (value * t1) / t2 on the CPU and value * (t1 / t2) on CUDA."""
    dt = real.dtype
    if dt.is_complex:
        raise Unsupported(f"{'addcmul' if mnemonic == 'mul' else 'addcdiv'} of {dt} tensors")
    acc = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    a, b, c = as_value(tr, x, acc), as_value(tr, t1, acc), as_value(tr, t2, acc)
    if isinstance(value, torch.Tensor):
        raise Unsupported("a tensor value of addcmul / addcdiv")
    # (a 0-d value: one element of _foreach_addc*'s scalars tensor, which
    # ATen reads as a number)
    v = convert(tr, value, acc) if isinstance(value, Value) else constant(tr, value, acc)
    if mnemonic == "div" and real.device.type == "cuda":
        term = _b(tr, "mul", v, _b(tr, "div", b, c, acc), acc)
    else:
        term = _b(tr, mnemonic, _b(tr, "mul", v, b, acc), c, acc)
    out = _b(tr, "add", a, term, acc)
    return out if acc == dt else convert(tr, out, dt)


@op("addcmul")
def _addcmul(tr, real, x, tensor1, tensor2, *, value=1):
    """x + (value * t1) * t2 in the op-math type (float for f16/bf16),
    broadcast; ATen contracts the final multiply-add (one rounding), TGC
    rounds the product first."""
    return _addc(tr, real, "mul", x, tensor1, tensor2, value)


@op("addcdiv")
def _addcdiv(tr, real, x, tensor1, tensor2, *, value=1):
    """x + (value * t1) / t2 on the CPU, x + value * (t1 / t2) on CUDA, as
    ATen's kernels associate it; float op-math for f16/bf16."""
    return _addc(tr, real, "div", x, tensor1, tensor2, value)


@op("sign", "sgn")
def _sign(tr, real, x):
    """ATen's (0 < x) - (x < 0): 0 for 0, -0 and NaN; a bool is itself."""
    dt = real.dtype
    if dt.is_complex:
        raise Unsupported("sgn of a complex tensor")
    v = convert(tr, tval(tr, x), dt)
    if dt == torch.bool:
        return v
    zero = constant(tr, 0, dt)
    pos = convert(tr, _b(tr, "cmp gt,", v, zero, torch.bool), dt)
    neg = convert(tr, _b(tr, "cmp lt,", v, zero, torch.bool), dt)
    return _b(tr, "sub", pos, neg, dt)


@op("linalg_cross", "cross")
def _cross(tr, real, x, y, dim=None):
    """x × y along `dim` (size 3), broadcast (torch.cross without dim: the
    first dim of size 3; linalg_cross: -1)."""
    dt = real.dtype
    a, b = as_value(tr, x, dt), as_value(tr, y, dt)
    rank = real.dim()
    if dim is None:
        dim = next((d for d in range(rank) if real.shape[d] == 3), None)
        if dim is None:
            raise Unsupported("cross without a dim of size 3 (PyTorch raises)")
    d = norm_dim(int(dim), rank)
    if a.rank != rank or b.rank != rank:
        raise Unsupported("cross of operands of different ranks")
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise Unsupported("cross along a dim that is not statically 3")
    ai = [_select(tr, a, d, i) for i in range(3)]
    bi = [_select(tr, b, d, i) for i in range(3)]

    def term(i, j):  # a_i * b_j - a_j * b_i
        return _b(tr, "sub", _b(tr, "mul", ai[i], bi[j], dt), _b(tr, "mul", ai[j], bi[i], dt), dt)

    parts = [_unsqueeze(tr, t, d) for t in (term(1, 2), term(2, 0), term(0, 1))]
    like = parts[0]
    return _concat_values(tr, parts, d, like)


def _reduce(tr, v: Value, reduction: str, real, batch_size=None) -> Value:
    from .reductions import sum_value

    if reduction == "none":
        return v
    total = sum_value(tr, v, list(range(v.rank)), real.dtype)
    if reduction == "sum":
        return total
    if reduction == "mean":
        n = 1
        for s in v.concrete():
            n *= s
        if any(not isinstance(s, int) for s in v.shape):
            raise Unsupported("mean reduction over dynamic sizes")
        return _b(tr, "div", total, constant(tr, n, real.dtype), real.dtype)
    if reduction == "batchmean":
        if v.rank == 0:
            return total
        if not isinstance(v.shape[0], int):
            raise Unsupported("batchmean over a dynamic batch")
        return _b(tr, "div", total, constant(tr, v.shape[0], real.dtype), real.dtype)
    raise Unsupported(f"kl_div reduction={reduction!r}")


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


@op("kl_div")
def _kl_div(tr, real, input, target, size_average=None, reduce=None, reduction="mean",
            log_target=False):
    """target * (log(target) - input) with 0 where target is 0 (xlogy), or
    exp(target) * (target - input) with log_target."""
    if isinstance(reduction, int):  # aten.kl_div's enum
        reduction = _REDUCTIONS[reduction]
    if size_average is not None or reduce is not None:
        raise Unsupported("kl_div with the deprecated size_average/reduce")
    dt = real.dtype
    if not dt.is_floating_point:
        raise Unsupported(f"kl_div of {dt} tensors")
    x, t = as_value(tr, input, dt), as_value(tr, target, dt)
    if log_target:
        et = tr.graph.emit(f"tgc.exp {t.name} : {t.type}", [(dt, t.shape)], tr.loc())[0]
        loss = _b(tr, "mul", et, _b(tr, "sub", t, x, dt), dt)
    else:
        logt = tr.graph.emit(f"tgc.log {t.name} : {t.type}", [(dt, t.shape)], tr.loc())[0]
        tlogt = _where_values(tr, _b(tr, "cmp eq,", t, constant(tr, 0, dt), torch.bool),
                              constant(tr, 0, dt), _b(tr, "mul", t, logt, dt), dt)
        loss = _b(tr, "sub", tlogt, _b(tr, "mul", t, x, dt), dt)
    return _reduce(tr, loss, reduction, real)


# The fewest shifts of a cumsum along a dynamic size (its sizes up to 1024
# in one compile: Hugging Face's position ids from an attention mask).
_MIN_DYNAMIC_SCAN_STEPS = 10


@op("cumsum")
def _cumsum(tr, real, x, dim, dtype=None, **kw):
    """An inclusive scan in log2(n) steps (Hillis-Steele): y += y shifted
    by 1, 2, 4, ... along `dim`; exact for integers, for floats the sums'
    rounding order differs from eager's loop as a GPU scan's does. Along a
    dynamic size, enough shifts for twice the traced size (at least 1024),
    with a guard that the size stays within them (a larger one compiles
    again); a shift past the size adds zeros."""
    import operator

    from .core import convert, expr_of, tval
    from .shapes import _slice, pad_value

    dt = real.dtype
    v = convert(tr, tval(tr, x), dt)
    if v.rank == 0:
        return v
    d = norm_dim(int(dim), v.rank)
    n = v.shape[d]
    if dt == torch.bool:
        raise Unsupported("cumsum of bools")
    if isinstance(n, int):
        steps, end = max(n - 1, 0).bit_length(), n
    else:
        e = expr_of(n)
        if e is None or e.opaque():
            raise Unsupported("cumsum along a dynamic size the graph cannot express")
        steps = max(_MIN_DYNAMIC_SCAN_STEPS, max(n.value - 1, 0).bit_length() + 1)
        if not tr.guard_compare(e, 2 ** steps, operator.le,
                                f"cumsum along a dynamic size: {steps} shifts"):
            raise Unsupported("cumsum along a dynamic size")  # (the traced size is within)
        end = tr.sym_size(v, d)
    for i in range(steps):
        low = [0] * v.rank
        high = [0] * v.rank
        low[d] = 2 ** i
        shifted = _slice(tr, pad_value(tr, v, low, high), d, 0, end, 1)
        v = _b(tr, "add", v, shifted, dt)
    return v


@op("prod")
def _prod(tr, real, x, dim=None, keepdim=False, dtype=None, **kw):
    """A product in log2(n) halvings along a static size (the odd element
    paired with a 1); over every dim after a flatten."""
    from .core import convert, tval
    from .shapes import _reshape_to, _slice, pad_value

    dt = real.dtype
    if dt == torch.bool:
        raise Unsupported("prod with a bool result")
    dim = kw.get("dim", dim)
    v = convert(tr, tval(tr, x), dt)
    if dim is None:
        if any(not isinstance(s, int) for s in v.shape):
            raise Unsupported("prod along a dynamic size")
        n = 1
        for s in v.shape:
            n *= s
        v, d, keepdim = _reshape_to(tr, v, [n]), 0, False
    else:
        d = norm_dim(int(dim), max(v.rank, 1))
        if v.rank == 0:
            return v
    n = v.shape[d]
    if not isinstance(n, int):
        raise Unsupported("prod along a dynamic size")
    if n == 0:
        raise Unsupported("prod over a size-0 dim")
    while n > 1:
        if n % 2:
            low = [0] * v.rank
            high = [0] * v.rank
            high[d] = 1
            v = pad_value(tr, v, low, high, 1)
            n += 1
        v = _b(tr, "mul", _slice(tr, v, d, 0, n // 2, 1), _slice(tr, v, d, n // 2, n, 1), dt)
        n //= 2
    if keepdim:
        return v
    return _reshape_to(tr, v, v.shape[:d] + v.shape[d + 1:])
