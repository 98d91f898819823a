"""How each PyTorch operator becomes ``tgc`` ops.

One table keyed by operator name serves the tracer (``torch.add``,
``Tensor.add``, ``F.linear``, ...) and the FX importer (the same functions,
method names, and ``torch.ops.aten.*`` overloads). Every handler receives
the real eager result, so dtypes follow PyTorch's promotion rules exactly;
result sizes are computed here, static where PyTorch's rules make them
static and dynamic (``?``) otherwise, never guessed from the example.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from ._graph import (
    Dyn,
    Unsupported,
    Value,
    attr_float,
    format_type,
    scalar_literal,
    size_value,
)
from ._trace import NeedRetrace, Poisoned, Tracer, TracedSize, user_frame

Handler = Callable[..., Any]
HANDLERS: Dict[str, Handler] = {}

# Calls that only read metadata or are no-ops for a value-semantic graph.
PASSTHROUGH = {
    "dim", "ndimension", "is_contiguous", "is_floating_point", "is_complex",
    "element_size", "get_device", "type", "__format__", "__repr__",
    "__str__", "__hash__", "data_ptr", "stride",
    "storage_offset", "is_signed", "__reduce_ex__", "__setstate__",
    "_is_view", "requires_grad_", "has_names",
}
GETTERS_PASSTHROUGH = {
    "dtype", "device", "requires_grad", "is_cuda", "ndim", "layout",
    "names", "grad", "is_leaf", "grad_fn", "is_sparse", "is_quantized",
    "is_meta", "is_mkldnn", "_base", "output_nr", "_version", "is_nested",
    "itemsize", "nbytes",
}


def op(*names: str):
    def register(fn: Handler) -> Handler:
        for n in names:
            HANDLERS[n] = fn
        return fn

    return register


def func_name(func) -> str:
    """The operator name of a torch function, method or aten overload."""
    if isinstance(func, str):
        return func
    schema = getattr(func, "_schema", None)
    if schema is not None:  # torch.ops.aten.add.Tensor
        return "aten." + schema.name.split("::")[-1]
    name = getattr(func, "__name__", None)
    if name == "__get__":
        owner = getattr(func, "__self__", None)
        return "get." + getattr(owner, "__name__", "?")
    if name is None:
        raise Unsupported(f"torch function {func!r}")
    return name


# Dunder and in-place spellings of the same operators.
_ALIASES = {
    "__add__": "add", "__radd__": "radd", "__iadd__": "add_",
    "__sub__": "sub", "__rsub__": "rsub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "rmul", "__imul__": "mul_",
    "__truediv__": "div", "__rtruediv__": "rdiv", "__itruediv__": "div_",
    "__div__": "div", "__rdiv__": "rdiv", "__floordiv__": "floor_divide",
    "__rfloordiv__": "rfloordiv", "__mod__": "remainder",
    "__pow__": "pow", "__rpow__": "rpow", "__matmul__": "matmul",
    "__rmatmul__": "rmatmul", "__neg__": "neg", "__abs__": "abs",
    "__and__": "logical_and_op", "__or__": "logical_or_op",
    "__invert__": "bitwise_not", "__lt__": "lt", "__le__": "le",
    "__gt__": "gt", "__ge__": "ge", "__eq__": "eq", "__ne__": "ne",
    "true_divide": "div", "multiply": "mul", "subtract": "sub",
    "divide": "div", "greater": "gt", "less": "lt", "greater_equal": "ge",
    "less_equal": "le", "not_equal": "ne", "clip": "clamp",
    "absolute": "abs", "negative": "neg", "arctan2": "atan2",
    "getitem": "__getitem__", "concatenate": "cat", "concat": "cat", "swapaxes": "transpose",
    "swapdims": "transpose", "moveaxis": "movedim",
}


def dispatch(tr: Tracer, func, args, kwargs, name: Optional[str] = None):
    """Runs `func` eagerly and records it. An unsupported call is recorded
    as an error (the trace goes on, so that one report lists them all) and
    its results are poisoned: what depends on them is not reported again."""
    name = name or func_name(func)
    try:
        return _dispatch(tr, func, name, args, kwargs)
    except Poisoned:  # raised before the call ran
        real = func(*args, **kwargs)
        _poison_outputs(tr, real)
        return real
    except Unsupported as e:  # raised before the call ran
        if e.fatal:
            raise
        return _unsupported(tr, func(*args, **kwargs), e.message, e.where)


def _has_tensor(x) -> bool:
    if isinstance(x, torch.Tensor):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has_tensor(e) for e in x)
    if isinstance(x, dict):
        return any(_has_tensor(e) for e in x.values())
    return False


def _poison_outputs(tr: Tracer, real) -> None:
    if isinstance(real, torch.Tensor):
        tr.poison(real)
    elif isinstance(real, (tuple, list)):
        for r in real:
            _poison_outputs(tr, r)


def _dispatch(tr: Tracer, func, name: str, args, kwargs):
    if name.startswith("get."):
        attr = name[4:]
        if attr == "shape":
            v = tr.value_of(args[0])
            return TracedSize(tr, v, func(*args, **kwargs))
        if attr in GETTERS_PASSTHROUGH:
            return func(*args, **kwargs)
        name = attr
    if name in ("size",):
        return _size(tr, func, args, kwargs)
    if name == "numel":
        v = tr.value_of(args[0])
        for s in v.shape:
            tr.specialize(s, "numel()")
        return func(*args, **kwargs)
    if name == "__len__":
        v = tr.value_of(args[0])
        if v.rank == 0:
            raise TypeError("len() of a 0-d tensor")
        tr.specialize(v.shape[0], "len()")
        return func(*args, **kwargs)
    if name in ("item", "_local_scalar_dense", "__float__", "__int__") and isinstance(
        args[0], torch.Tensor
    ):
        # A one-element input read as a Python number (Dynamo lifts module
        # constants such as LayerNorm's eps this way): specialized on its
        # value, checked before the guards on every call.
        arg = next((i for i, x in enumerate(tr.inputs) if x is args[0]), None)
        if arg is not None and args[0].numel() == 1 and id(args[0]) not in tr.mutated:
            value = func(*args, **kwargs)
            tr.value_specs.append((arg, value))
            return value
    if name in ("__bool__", "item", "tolist", "__int__", "__float__",
                "__index__", "numpy", "nonzero", "any", "all", "equal",
                "allclose", "unique", "_local_scalar_dense"):
        tr.errors.append(
            f"data-dependent Python code (Tensor.{name}): TGC traces one graph "
            "and cannot guard on tensor values, at %s:%d" % user_frame()
        )
        return func(*args, **kwargs)
    if name in PASSTHROUGH:
        return func(*args, **kwargs)
    name = _ALIASES.get(name, name)
    if name.startswith("aten."):
        handler = HANDLERS.get(name) or HANDLERS.get(_ALIASES.get(name[5:], name[5:]))
    else:
        handler = HANDLERS.get(name)
    inplace = False
    if handler is None and name.endswith("_") and not name.startswith("_"):
        base = name[:-1]
        handler = HANDLERS.get(_ALIASES.get(base, base))
        if handler is None and base.startswith("aten."):
            handler = HANDLERS.get(base[5:])
        inplace = handler is not None
    if handler is None:
        real = func(*args, **kwargs)
        if not (_has_tensor(args) or _has_tensor(kwargs) or _has_tensor(real)):
            return real  # grad mode, autocast state, dtype queries...
        kind = "operator" if _has_tensor(args) or _has_tensor(kwargs) else "factory"
        return _unsupported(tr, real, f"torch {kind} '{name}'")
    kwargs = dict(kwargs)
    out_arg = kwargs.pop("out", None)
    # Operands first: the results of an op on a poisoned operand are
    # poisoned too, without a new error.
    try:
        for a in list(args) + list(kwargs.values()):
            for t in (a if isinstance(a, (list, tuple)) else [a]):
                if isinstance(t, torch.Tensor):
                    tr.value_of(t)
        poisoned = False
    except Poisoned:
        poisoned = True
    if out_arg is not None:
        real = func(*args, out=out_arg, **kwargs)
    else:
        real = func(*args, **kwargs)
    if poisoned:
        _poison_outputs(tr, real)
        return real
    tr.ops += 1
    # From here on the op has run (once): a failure to record it is
    # reported and its results poisoned, never a second eager run.
    try:
        result = handler(tr, real, *args, **kwargs)
        if inplace:
            _assign(tr, args[0], _single(result))
            return args[0]
        if out_arg is not None:
            if isinstance(out_arg, torch.Tensor):
                _assign(tr, out_arg, _single(result))
                return out_arg
            for t, v in zip(out_arg, result):
                _assign(tr, t, v)
            return real
        return _bind_result(tr, real, result)
    except Poisoned:
        _poison_outputs(tr, real)
        return real
    except TypeError as e:
        return _unsupported(tr, real, f"torch operator '{name}' with these arguments ({e})")
    except Unsupported as e:
        if e.fatal:
            raise
        return _unsupported(tr, real, e.message, e.where)
    except NeedRetrace:
        raise
    except Exception as e:  # noqa: BLE001 - a bug of TGC's, never the user's crash
        return _unsupported(
            tr, real, f"internal error recording torch operator '{name}' "
            f"({type(e).__name__}: {e}); please report it")


def _unsupported(tr: Tracer, real, message: str, where: str = ""):
    """Records an unsupported call that has run; poisons its results."""
    tr.errors.append(f"{message} at {where or '%s:%d' % user_frame()}")
    _poison_outputs(tr, real)
    return real


def _single(result):
    if isinstance(result, Value):
        return result
    raise Unsupported("an in-place or out= form of an operator with several results")


def _assign(tr: Tracer, t: torch.Tensor, v: Value) -> None:
    """`t` now holds `v` (out=, in-place)."""
    old = tr.value_of(t)
    if old.dtype != v.dtype:
        v = convert(tr, v, old.dtype)
    if old.rank != v.rank or any(
        isinstance(a, int) and isinstance(b, int) and a != b
        for a, b in zip(old.shape, v.shape)
    ):
        if not isinstance(v.shape, list) or old.concrete() != v.concrete():
            raise Unsupported("an out= tensor of a different shape (PyTorch resizes it)")
    if t._base is not None:
        raise Unsupported("an in-place update of a view")
    arg = next(
        (i for i, x in enumerate(tr.inputs) if x is t), None
    )
    if arg is None and any(c is t for c in tr.captured):
        raise Unsupported("an in-place update of a tensor from outside the function")
    if arg is not None:
        tr.mutated[id(t)] = arg
    tr.bind(t, v)


def _bind_result(tr: Tracer, real, result):
    if isinstance(result, Value):
        if not isinstance(real, torch.Tensor):
            raise Unsupported("an operator that returns a non-tensor")
        _check(real, result)
        tr.bind(real, result)
        return real
    if isinstance(result, (tuple, list)) and isinstance(real, (tuple, list)):
        for t, v in zip(real, result):
            if isinstance(v, Value):
                _check(t, v)
                tr.bind(t, v)
            elif isinstance(t, torch.Tensor):
                tr.poison(t)  # a result TGC does not compute
        return real
    _poison_outputs(tr, real)
    return real


def _check(real: torch.Tensor, v: Value) -> None:
    if list(real.shape) != v.concrete() or real.dtype != v.dtype:
        raise AssertionError(
            f"internal error: recorded {v.type} {v.concrete()} but PyTorch "
            f"computed {tuple(real.shape)} {real.dtype}"
        )


# --- helpers -----------------------------------------------------------------


def merge_dims(sizes: Sequence[Any], value: int):
    """Sizes that must be equal (or broadcast): static wins, else the one
    symbol, else a new dynamic size."""
    static = [s for s in sizes if isinstance(s, int) and s != 1]
    if static:
        return static[0]
    dyns = [s for s in sizes if isinstance(s, Dyn)]
    if not dyns:
        return 1
    if all(d is dyns[0] for d in dyns):
        return dyns[0]
    return Dyn(frozenset().union(*(d.sources for d in dyns)), value)


def broadcast(shapes: Sequence[Sequence[Any]], real: Sequence[int]) -> List[Any]:
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        column = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        out.append(merge_dims(column, real[i]))
    return out


def derived(sizes: Sequence[Any], value: int):
    """A size computed from `sizes` (static when they all are)."""
    dyns = [s for s in sizes if isinstance(s, Dyn)]
    if not dyns:
        return int(value)
    return Dyn(frozenset().union(*(d.sources for d in dyns)), value)


def norm_dim(d: int, rank: int) -> int:
    if d < -max(rank, 1) or d >= max(rank, 1):
        raise IndexError(f"dim {d} out of range for rank {rank}")
    return d + rank if d < 0 else d


def constant(tr: Tracer, value, dtype: torch.dtype) -> Value:
    t = format_type(dtype, [])
    return tr.graph.emit(
        f"tgc.constant dense<{scalar_literal(value, dtype)}> : {t}", [(dtype, [])]
    )[0]


def convert(tr: Tracer, v: Value, dtype: torch.dtype) -> Value:
    if v.dtype == dtype:
        return v
    out = format_type(dtype, v.shape)
    return tr.graph.emit(
        f"tgc.convert {v.name} : {v.type} -> {out}", [(dtype, v.shape)], tr.loc()
    )[0]


def as_value(tr: Tracer, x, dtype: torch.dtype) -> Value:
    """A tensor operand in `dtype`; Python scalars become constants."""
    if isinstance(x, torch.Tensor):
        return convert(tr, tr.value_of(x), dtype)
    if isinstance(x, (bool, numbers.Number)):
        return constant(tr, x, dtype)
    raise Unsupported(f"an operand of type {type(x).__name__}")


def tval(tr: Tracer, x) -> Value:
    if not isinstance(x, torch.Tensor):
        raise Unsupported(f"expected a tensor, got {type(x).__name__}")
    return tr.value_of(x)


def _size(tr: Tracer, func, args, kwargs):
    v = tr.value_of(args[0])
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    real = func(*args, **kwargs)
    if dim is None:
        return TracedSize(tr, v, real)
    tr.specialize(v.shape[norm_dim(dim, v.rank)], "size read")
    return real


def _arg(args, kwargs, index: int, name: str, default=None):
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


# --- elementwise ---------------------------------------------------------------

_UNARY = {
    "neg": "neg", "abs": "abs", "relu": "relu", "exp": "exp", "exp2": "exp2",
    "expm1": "expm1", "log": "log", "log2": "log2", "log1p": "log1p",
    "sqrt": "sqrt", "rsqrt": "rsqrt", "sin": "sin", "cos": "cos",
    "tanh": "tanh", "sigmoid": "sigmoid", "erf": "erf", "silu": "silu",
    "reciprocal": "reciprocal", "floor": "floor", "ceil": "ceil",
    "round": "round", "logical_not": "logical_not",
}


def _unary(mnemonic: str):
    def handler(tr, real, x, *rest, **kw):
        if mnemonic in ("floor", "ceil", "round") and not real.dtype.is_floating_point:
            return tval(tr, x)  # identity on integers
        if mnemonic == "round" and (rest or kw.get("decimals")):
            raise Unsupported("round(decimals=...)")
        if mnemonic == "logical_not":
            v = tval(tr, x)
            if v.dtype != torch.bool:
                zero = constant(tr, 0, v.dtype)
                return _binary_value(tr, "cmp eq,", v, zero, torch.bool)
        v = as_value(tr, x, real.dtype)
        return tr.graph.emit(f"tgc.{mnemonic} {v.name} : {v.type}", [(v.dtype, v.shape)], tr.loc())[0]

    return handler


for _name, _mn in _UNARY.items():
    HANDLERS[_name] = _unary(_mn)
HANDLERS["aten.relu"] = _unary("relu")


def _binary_value(tr, mnemonic: str, a: Value, b: Value, out_dtype, extra: str = "") -> Value:
    shape = broadcast([a.shape, b.shape], _bshape(a, b))
    rt = format_type(out_dtype, shape)
    return tr.graph.emit(
        f"tgc.{mnemonic} {a.name}, {b.name}{extra} : {a.type}, {b.type} -> {rt}",
        [(out_dtype, shape)],
        tr.loc(),
    )[0]


def _bshape(a: Value, b: Value) -> List[int]:
    return list(torch.broadcast_shapes(tuple(a.concrete()), tuple(b.concrete())))


def _promote(x, y) -> torch.dtype:
    return torch.result_type(x, y)


# On bools PyTorch's + and max are "or", * and min "and" (tgc's arithmetic
# takes numbers).
_BOOL_BINARY = {"add": "logical_or", "maximum": "logical_or",
                "mul": "logical_and", "minimum": "logical_and"}


def _binary(mnemonic: str, swap: bool = False):
    def handler(tr, real, x, y, *rest, **kw):
        alpha = _arg(rest, kw, 0, "alpha", 1)
        if swap:
            x, y = y, x
        dtype = real.dtype
        if dtype == torch.bool:
            if mnemonic not in _BOOL_BINARY or alpha not in (1, True):
                raise Unsupported(f"{mnemonic} of bool tensors")
            return _binary_value(tr, _BOOL_BINARY[mnemonic], as_value(tr, x, dtype),
                                 as_value(tr, y, dtype), dtype)
        a = as_value(tr, x, dtype)
        b = as_value(tr, y, dtype)
        if alpha != 1:
            b = _binary_value(tr, "mul", b, constant(tr, alpha, dtype), dtype)
        return _binary_value(tr, mnemonic, a, b, dtype)

    return handler


for _names, _mn, _swap in [
    (("add",), "add", False), (("radd",), "add", True),
    (("sub",), "sub", False), (("rsub",), "sub", True),
    (("mul", "rmul"), "mul", False), (("maximum",), "maximum", False),
    (("minimum",), "minimum", False), (("atan2",), "atan2", False),
    (("remainder",), "remainder", False), (("rremainder",), "remainder", True),
]:
    for _n in _names:
        HANDLERS[_n] = _binary(_mn, _swap)
HANDLERS["aten.rsub"] = _binary("sub", True)


def _fmax_fmin(mnemonic: str):
    """torch.fmax/fmin: like maximum/minimum, but a NaN loses to a number
    (the result is NaN only where both are)."""

    def handler(tr, real, x, y):
        dtype = real.dtype
        a, b = as_value(tr, x, dtype), as_value(tr, y, dtype)
        m = _binary_value(tr, mnemonic, a, b, dtype)
        if not dtype.is_floating_point:
            return m
        a_nan = _binary_value(tr, "cmp ne,", a, a, torch.bool)
        b_nan = _binary_value(tr, "cmp ne,", b, b, torch.bool)
        # where(a is nan, b, where(b is nan, a, m)), broadcast to m's shape.
        inner = _where_values(tr, b_nan, a, m, dtype)
        return _where_values(tr, a_nan, b, inner, dtype)

    return handler


def _where_values(tr, c: Value, a: Value, b: Value, dtype) -> Value:
    shape = broadcast([c.shape, a.shape, b.shape],
                      list(torch.broadcast_shapes(tuple(c.concrete()), tuple(a.concrete()),
                                                  tuple(b.concrete()))))
    rt = format_type(dtype, shape)
    return tr.graph.emit(
        f"tgc.where {c.name}, {a.name}, {b.name} : {c.type}, {a.type}, {b.type} -> {rt}",
        [(dtype, shape)], tr.loc(),
    )[0]


HANDLERS["fmax"] = _fmax_fmin("maximum")
HANDLERS["fmin"] = _fmax_fmin("minimum")


@op("div")
def _div(tr, real, x, y, *rest, **kw):
    mode = _arg(rest, kw, 0, "rounding_mode", None)
    dtype = real.dtype
    a, b = as_value(tr, x, dtype), as_value(tr, y, dtype)
    extra = f" rounding = {mode}" if mode else ""
    if mode is None and not dtype.is_floating_point:
        raise Unsupported("integer true division")
    return _binary_value(tr, "div", a, b, dtype, extra)


def _rdiv(tr, real, x, y, *rest, **kw):
    dtype = real.dtype
    a, b = as_value(tr, y, dtype), as_value(tr, x, dtype)
    return _binary_value(tr, "div", a, b, dtype)


HANDLERS["rdiv"] = _rdiv


@op("floor_divide")
def _floordiv(tr, real, x, y):
    dtype = real.dtype
    a, b = as_value(tr, x, dtype), as_value(tr, y, dtype)
    if dtype.is_floating_point:
        q = _binary_value(tr, "div", a, b, dtype)
        return tr.graph.emit(f"tgc.floor {q.name} : {q.type}", [(dtype, q.shape)], tr.loc())[0]
    return _binary_value(tr, "div", a, b, dtype, " rounding = floor")


@op("rfloordiv")
def _rfloordiv(tr, real, x, y):
    return _floordiv(tr, real, y, x)


@op("pow")
def _pow(tr, real, x, y):
    dtype = real.dtype
    if isinstance(y, numbers.Number) and not isinstance(x, numbers.Number):
        if y == 2:
            a = as_value(tr, x, dtype)
            return _binary_value(tr, "mul", a, a, dtype)
        if y == 1:
            return as_value(tr, x, dtype)
        if y == 0.5 and dtype.is_floating_point:
            a = as_value(tr, x, dtype)
            return tr.graph.emit(f"tgc.sqrt {a.name} : {a.type}", [(dtype, a.shape)], tr.loc())[0]
    return _binary_value(tr, "pow", as_value(tr, x, dtype), as_value(tr, y, dtype), dtype)


@op("rpow")
def _rpow(tr, real, x, y):
    return _pow(tr, real, y, x)


@op("square")
def _square(tr, real, x):
    a = as_value(tr, x, real.dtype)
    return _binary_value(tr, "mul", a, a, real.dtype)


def _compare(predicate: str):
    def handler(tr, real, x, y):
        dtype = _promote(x, y)
        a, b = as_value(tr, x, dtype), as_value(tr, y, dtype)
        return _binary_value(tr, f"cmp {predicate},", a, b, torch.bool)

    return handler


for _p in ("eq", "ne", "lt", "le", "gt", "ge"):
    HANDLERS[_p] = _compare(_p)


def _logical(mnemonic: str):
    def handler(tr, real, x, y):
        if real.dtype != torch.bool:
            raise Unsupported(f"bitwise {mnemonic} on integers")
        a, b = as_value(tr, x, torch.bool), as_value(tr, y, torch.bool)
        return _binary_value(tr, mnemonic, a, b, torch.bool)

    return handler


HANDLERS["logical_and"] = HANDLERS["logical_and_op"] = HANDLERS["bitwise_and"] = _logical("logical_and")
HANDLERS["logical_or"] = HANDLERS["logical_or_op"] = HANDLERS["bitwise_or"] = _logical("logical_or")


@op("bitwise_not")
def _bitwise_not(tr, real, x):
    if real.dtype != torch.bool:
        raise Unsupported("bitwise not on integers")
    v = tval(tr, x)
    return tr.graph.emit(f"tgc.logical_not {v.name} : {v.type}", [(v.dtype, v.shape)], tr.loc())[0]


@op("where")
def _where(tr, real, cond, x=None, y=None):
    if x is None:
        raise Unsupported("where(condition) (data-dependent size)")
    dtype = real.dtype
    c = as_value(tr, cond, torch.bool)
    a, b = as_value(tr, x, dtype), as_value(tr, y, dtype)
    shape = broadcast([c.shape, a.shape, b.shape], list(real.shape))
    rt = format_type(dtype, shape)
    return tr.graph.emit(
        f"tgc.where {c.name}, {a.name}, {b.name} : {c.type}, {a.type}, {b.type} -> {rt}",
        [(dtype, shape)], tr.loc(),
    )[0]


@op("masked_fill")
def _masked_fill(tr, real, x, mask, value):
    return _where(tr, real, mask, value, x)


def _clamp_value(tr, real, x, lo, hi):
    """min(max(x, lo), hi) as PyTorch computes it: NaN stays NaN, and with
    lo > hi every element is hi."""
    if isinstance(lo, torch.Tensor) or isinstance(hi, torch.Tensor) or \
            not real.dtype.is_floating_point:
        v = as_value(tr, x, real.dtype)
        if lo is not None:
            v = _binary_value(tr, "maximum", v, as_value(tr, lo, real.dtype), real.dtype)
        if hi is not None:
            v = _binary_value(tr, "minimum", v, as_value(tr, hi, real.dtype), real.dtype)
        return v
    v = as_value(tr, x, real.dtype)
    if lo is not None and hi is not None and lo > hi:
        # tgc.clamp needs min <= max: two clamps give PyTorch's answer.
        v = tr.graph.emit(f"tgc.clamp {v.name} min {attr_float(lo)} : {v.type}",
                          [(v.dtype, v.shape)], tr.loc())[0]
        lo = None
    attrs = ""
    if lo is not None:
        attrs += f" min {attr_float(lo)}"
    if hi is not None:
        attrs += f" max {attr_float(hi)}"
    if not attrs:
        return v
    return tr.graph.emit(f"tgc.clamp {v.name}{attrs} : {v.type}", [(v.dtype, v.shape)], tr.loc())[0]


@op("clamp")
def _clamp(tr, real, x, lo=None, hi=None, **kw):
    lo = kw.get("min", kw.get("min_val", lo))
    hi = kw.get("max", kw.get("max_val", hi))
    return _clamp_value(tr, real, x, lo, hi)


@op("clamp_min")
def _clamp_min(tr, real, x, lo=None, **kw):
    return _clamp_value(tr, real, x, kw.get("min", lo), None)


@op("clamp_max")
def _clamp_max(tr, real, x, hi=None, **kw):
    return _clamp_value(tr, real, x, None, kw.get("max", hi))


HANDLERS["relu6"] = lambda tr, real, x, *a, **k: _clamp(tr, real, x, 0.0, 6.0)
HANDLERS["hardtanh"] = lambda tr, real, x, lo=-1.0, hi=1.0, *a, **k: _clamp(
    tr, real, x, k.get("min_val", lo), k.get("max_val", hi))


@op("gelu")
def _gelu(tr, real, x, approximate="none"):
    v = as_value(tr, x, real.dtype)
    extra = " approximate = tanh" if approximate == "tanh" else ""
    return tr.graph.emit(f"tgc.gelu {v.name}{extra} : {v.type}", [(v.dtype, v.shape)], tr.loc())[0]


@op("leaky_relu")
def _leaky_relu(tr, real, x, negative_slope=0.01, inplace=False):
    slope = negative_slope
    v = as_value(tr, x, real.dtype)
    zero = constant(tr, 0, v.dtype)
    neg = _binary_value(tr, "mul", v, constant(tr, slope, v.dtype), v.dtype)
    c = _binary_value(tr, "cmp gt,", v, zero, torch.bool)
    rt = v.type
    return tr.graph.emit(
        f"tgc.where {c.name}, {v.name}, {neg.name} : {c.type}, {v.type}, {neg.type} -> {rt}",
        [(v.dtype, v.shape)], tr.loc(),
    )[0]


@op("dropout", "feature_dropout", "alpha_dropout")
def _dropout(tr, real, x, p=0.5, training=False, inplace=False):
    if training and p > 0:
        raise Unsupported("dropout in training mode (random)")
    return tval(tr, x)


@op("contiguous", "clone", "detach", "alias", "lift_fresh_copy", "cpu", "cuda")
def _identity(tr, real, x, *a, **k):
    return tval(tr, x)


@op("to", "type_as", "float", "double", "half", "bfloat16", "long", "int", "bool", "_to_copy")
def _to(tr, real, x, *a, **k):
    v = tval(tr, x)
    if real.device != x.device:
        raise Unsupported("a device transfer inside the function")
    return convert(tr, v, real.dtype)


# --- reductions ------------------------------------------------------------------


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
            flat = _reshape_to(tr, v, [derived(v.shape, v.concrete() and math.prod(v.concrete()))])
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
        vt = format_type(v.dtype, shape)
        it = format_type(torch.int64, shape)
        return tuple(tr.graph.emit(
            f"tgc.{mnemonic} {v.name} dim {d}{kd} : {v.type} -> {vt}, {it}",
            [(v.dtype, shape), (torch.int64, shape)], tr.loc(),
        ))

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


# --- shapes ----------------------------------------------------------------------


def _sizes_arg(args) -> List[int]:
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        args = args[0]
    return [int(a) for a in args]


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
    if len(dyn) <= 1:
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
        if j is None:
            unknown.append(p)
        else:
            sizes[p] = _index_value(tr, v, j)
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


@op("reshape", "view", "_unsafe_view", "_reshape_alias")
def _reshape(tr, real, x, *sizes, **kw):
    v = tval(tr, x)
    if "shape" in kw:
        sizes = (kw["shape"],)
    if len(sizes) == 1 and isinstance(sizes[0], torch.dtype):
        raise Unsupported("view(dtype)")
    target = _sizes_arg(sizes)
    shape: List[Any] = []
    for i, s in enumerate(target):
        if s == -1:
            shape.append(derived(v.shape, real.shape[i]))
        else:
            shape.append(s)
    return _reshape_to(tr, v, shape)


@op("flatten")
def _flatten(tr, real, x, start_dim=0, end_dim=-1):
    v = tval(tr, x)
    if v.rank == 0:
        return _reshape_to(tr, v, [1])
    s, e = norm_dim(start_dim, v.rank), norm_dim(end_dim, v.rank)
    merged = derived(v.shape[s : e + 1], real.shape[s])
    return _reshape_to(
        tr, v, v.shape[:s] + [merged] + v.shape[e + 1 :], {s: list(range(s, e + 1))}
    )


@op("unflatten")
def _unflatten(tr, real, x, dim, sizes):
    v = tval(tr, x)
    d = norm_dim(dim, v.rank)
    new = [derived([v.shape[d]], real.shape[d + i]) if s == -1 else int(s) for i, s in enumerate(sizes)]
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
    perm = [norm_dim(d, v.rank) for d in _sizes_arg(dims)]
    return _permute(tr, v, perm)


@op("transpose")
def _transpose(tr, real, x, d0, d1):
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
def _movedim(tr, real, x, src, dst):
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


@op("expand", "broadcast_to")
def _expand(tr, real, x, *sizes, **kw):
    v = tval(tr, x)
    target = _sizes_arg(kw.get("size", sizes) if "size" in kw else sizes)
    lead = len(target) - v.rank
    shape: List[Any] = []
    for i, s in enumerate(target):
        src = v.shape[i - lead] if i >= lead else None
        if s == -1:
            shape.append(src)
        elif src is not None and isinstance(src, Dyn) and s == src.value and s != 1:
            shape.append(src)  # expand(x.shape) keeps the symbol
        else:
            shape.append(int(s))
    if shape == v.shape:
        return v
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(f"tgc.expand {v.name} : {v.type} -> {rt}", [(v.dtype, shape)], tr.loc())[0]


@op("expand_as")
def _expand_as(tr, real, x, other):
    v, o = tval(tr, x), tval(tr, other)
    shape = broadcast([v.shape, o.shape], list(real.shape))
    if shape == v.shape:
        return v
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(f"tgc.expand {v.name} : {v.type} -> {rt}", [(v.dtype, shape)], tr.loc())[0]


def _slice(tr, v: Value, d: int, start, end, step: int) -> Value:
    s = v.shape[d]
    if step <= 0:
        raise Unsupported("a slice with a non-positive step")
    start = 0 if start is None else int(start)
    big = 2**62
    end = big if end is None else int(end)
    if isinstance(s, int):
        n = len(range(*slice(start, end, step).indices(s)))
        size: Any = n
        if n == s:
            return v
    else:
        n = len(range(*slice(start, end, step).indices(s.value)))
        size = Dyn(s.sources, n)
    shape = list(v.shape)
    shape[d] = size
    rt = format_type(v.dtype, shape)
    end_attr = min(end, 2**62)
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


@op("select")
def _select_h(tr, real, x, dim, index):
    v = tval(tr, x)
    return _select(tr, v, norm_dim(dim, v.rank), int(index))


@op("slice")
def _slice_h(tr, real, x, dim=0, start=None, end=None, step=1):
    v = tval(tr, x)
    return _slice(tr, v, norm_dim(dim, v.rank), start, end, step)


@op("narrow")
def _narrow(tr, real, x, dim, start, length):
    v = tval(tr, x)
    d = norm_dim(dim, v.rank)
    if int(start) < 0:
        raise Unsupported("narrow with a negative start")
    return _slice(tr, v, d, int(start), int(start) + int(length), 1)


@op("__getitem__")
def _getitem(tr, real, x, index):
    v = tval(tr, x)
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, torch.Tensor) for i in index):
        tensors = [i for i in index if isinstance(i, torch.Tensor)]
        if len(index) == 1 and tensors[0].dtype in (torch.int64, torch.int32):
            return _index_select(tr, real, x, 0, index[0])
        raise Unsupported("advanced indexing with tensors (other than x[idx])")
    if Ellipsis in index:
        k = index.index(Ellipsis)
        used = sum(1 for i in index if i is not None and i is not Ellipsis)
        index = index[:k] + (slice(None),) * (v.rank - used) + index[k + 1 :]
    d = 0
    for item in index:
        if item is None:
            v = _unsqueeze(tr, v, d)
            d += 1
        elif isinstance(item, slice):
            v = _slice(tr, v, d, item.start, item.stop, item.step or 1)
            d += 1
        elif isinstance(item, int):
            v = _select(tr, v, d, item)
        else:
            raise Unsupported(f"indexing with {type(item).__name__}")
    return v


@op("cat")
def _cat(tr, real, tensors, dim=0):
    vals = [convert(tr, tval(tr, t), real.dtype) for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)]
    if len(vals) == 1:
        return vals[0]
    d = norm_dim(dim, vals[0].rank)
    shape = []
    for i in range(vals[0].rank):
        if i == d:
            shape.append(derived([x.shape[i] for x in vals], real.shape[i]))
        else:
            shape.append(merge_dims([x.shape[i] for x in vals], real.shape[i]))
    rt = format_type(real.dtype, shape)
    names = ", ".join(x.name for x in vals)
    types = ", ".join(x.type for x in vals)
    return tr.graph.emit(f"tgc.concat {names} dim = {d} : ({types}) -> {rt}", [(real.dtype, shape)], tr.loc())[0]


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


@op("split", "split_with_sizes", "chunk", "unbind", "tensor_split")
def _split(tr, real, x, *a, **k):
    raise Unsupported("split/chunk/unbind (use slicing)")


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
    w, i = tval(tr, weight), tval(tr, ids)
    shape = list(i.shape) + [w.shape[1]]
    rt = format_type(w.dtype, shape)
    return tr.graph.emit(
        f"tgc.embedding {w.name}, {i.name} : {w.type}, {i.type} -> {rt}",
        [(w.dtype, shape)], tr.loc(),
    )[0]


@op("pad", "constant_pad_nd")
def _pad(tr, real, x, pad, mode="constant", value=None):
    if mode != "constant":
        raise Unsupported(f"pad(mode={mode!r})")
    v = tval(tr, x)
    pad = list(pad)
    low = [0] * v.rank
    high = [0] * v.rank
    for i in range(len(pad) // 2):
        d = v.rank - 1 - i
        low[d], high[d] = int(pad[2 * i]), int(pad[2 * i + 1])
    if min(low + high) < 0:
        raise Unsupported("negative padding")
    shape = [s + low[i] + high[i] if isinstance(s, int) else derived([s], real.shape[i]) for i, s in enumerate(v.shape)]
    rt = format_type(v.dtype, shape)
    val = scalar_literal(value or 0, v.dtype)
    from ._graph import mlir_dtype

    return tr.graph.emit(
        f"tgc.pad {v.name} low {low} high {high} value {val} : {mlir_dtype(v.dtype)} : {v.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]


# --- linear algebra and nn -------------------------------------------------------


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


@op("layer_norm", "native_layer_norm")
def _layer_norm(tr, real, x, normalized_shape, weight=None, bias=None, eps=1e-5, *rest):
    if isinstance(real, tuple):
        raise Unsupported("native_layer_norm's statistics")
    v = tval(tr, x)
    parts = ""
    if weight is not None:
        w = tval(tr, weight)
        parts += f" weight({w.name} : {w.type})"
    if bias is not None:
        b = tval(tr, bias)
        parts += f" bias({b.name} : {b.type})"
    n = len(list(normalized_shape))
    return tr.graph.emit(
        f"tgc.layer_norm {v.name}{parts} normalized_rank = {n} eps = {attr_float(eps)} : {v.type}",
        [(v.dtype, v.shape)], tr.loc(),
    )[0]


@op("rms_norm")
def _rms_norm(tr, real, x, normalized_shape, weight=None, eps=None):
    v = tval(tr, x)
    if eps is None:
        eps = torch.finfo(v.dtype).eps
    parts = ""
    if weight is not None:
        w = tval(tr, weight)
        parts += f" weight({w.name} : {w.type})"
    n = len(list(normalized_shape))
    return tr.graph.emit(
        f"tgc.rms_norm {v.name}{parts} normalized_rank = {n} eps = {attr_float(eps)} : {v.type}",
        [(v.dtype, v.shape)], tr.loc(),
    )[0]


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


# --- factories -------------------------------------------------------------------


def _full_value(tr, real, value, like: Optional[Value] = None) -> Value:
    """`value` in the shape of `real`, or of `like` (whose dynamic sizes are
    passed as index values)."""
    from ._graph import mlir_dtype

    shape = list(like.shape) if like is not None else [int(s) for s in real.shape]
    dynamic = [_index_value(tr, like, i) for i, s in enumerate(shape) if isinstance(s, Dyn)]
    sizes = f" [{', '.join(dynamic)}]" if dynamic else ""
    rt = format_type(real.dtype, shape)
    lit = scalar_literal(value, real.dtype)
    return tr.graph.emit(
        f"tgc.full {lit} : {mlir_dtype(real.dtype)}{sizes} : {rt}", [(real.dtype, shape)], tr.loc()
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


@op("zeros", "ones", "full", "new_zeros", "new_ones", "new_full")
def _factory(tr, real, *args, **kw):
    return _full_value(tr, real, _fill_value(real, False))


@op("empty", "new_empty")
def _empty(tr, real, *args, **kw):
    return _full_value(tr, real, _fill_value(real, True))


def _like(uninitialized: bool):
    def handler(tr, real, like, *args, **kw):
        # The result has the sizes of `like`, dynamic ones included.
        v = tr.value_of(like)
        return _full_value(tr, real, _fill_value(real, uninitialized), like=v)

    return handler


for _n in ("zeros_like", "ones_like", "full_like"):
    HANDLERS[_n] = _like(False)
HANDLERS["empty_like"] = _like(True)


@op("arange")
def _arange(tr, real, *args, **kw):
    from ._graph import mlir_dtype

    nums = [a for a in args if isinstance(a, numbers.Number)]
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


@op("tensor", "as_tensor", "scalar_tensor")
def _tensor(tr, real, *a, **k):
    if real.numel() > 1024:
        raise Unsupported("a constant tensor with more than 1024 elements")
    return dense_constant(tr, real)


def dense_constant(tr: Tracer, t: torch.Tensor) -> Value:
    flat = t.reshape(-1).tolist()
    body = ", ".join(scalar_literal(x, t.dtype) for x in flat)
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
