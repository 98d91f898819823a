"""Elementwise operators: unary math, binary arithmetic with PyTorch's
promotion, comparisons, logical ops, where, clamp, activations, casts."""

from __future__ import annotations

import numbers
import torch
from typing import List

from .._graph import Unsupported, Value, attr_float, format_type
from .._scalars import DataScalar, concrete
from .core import (
    DATA_SCALARS,
    HANDLERS,
    SYMBOLIC,
    _arg,
    as_value,
    broadcast,
    constant,
    convert,
    op,
    tval,
)


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
        if mnemonic == "abs" and real.dtype in (torch.bool, torch.uint8):
            return tval(tr, x)  # identity (PyTorch 2.x takes bools)
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
    # A number from tensor data promotes as the Python number it is.
    return torch.result_type(*concrete((x, y)))


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
# Arithmetic with a size keeps it symbolic (x * S, S - x, x / S): the size
# becomes a value the graph computes (core.sym_tensor), not a constant.
for _n in ("add", "radd", "sub", "rsub", "mul", "rmul", "aten.rsub"):
    SYMBOLIC.add(HANDLERS[_n])


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
SYMBOLIC.update({_div, _rdiv})


@op("floor_divide")
def _floordiv(tr, real, x, y):
    dtype = real.dtype
    a, b = as_value(tr, x, dtype), as_value(tr, y, dtype)
    # torch.floor_divide is div(rounding_mode="floor") since PyTorch 1.13:
    # for floats not floor(a / b) (inf // 2 is NaN, 3 // -inf is -1).
    return _binary_value(tr, "div", a, b, dtype, " rounding = floor")


@op("rfloordiv")
def _rfloordiv(tr, real, x, y):
    return _floordiv(tr, real, y, x)


@op("pow")
def _pow(tr, real, x, exponent):  # (PyTorch's keyword names: pow(x, exponent=2))
    y = exponent
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
    if isinstance(lo, (torch.Tensor, DataScalar)) or \
            isinstance(hi, (torch.Tensor, DataScalar)) or \
            not real.dtype.is_floating_point:
        v = as_value(tr, x, real.dtype)
        # (on bools max is or and min is and: tgc.maximum takes numbers)
        boolean = real.dtype == torch.bool
        if lo is not None:
            v = _binary_value(tr, "logical_or" if boolean else "maximum", v,
                              as_value(tr, lo, real.dtype), real.dtype)
        if hi is not None:
            v = _binary_value(tr, "logical_and" if boolean else "minimum", v,
                              as_value(tr, hi, real.dtype), real.dtype)
        return v
    if any(b is not None and b != b for b in (lo, hi)):
        # tgc.clamp refuses a NaN bound (PyTorch versions disagree on it):
        # eager decides.
        raise Unsupported("clamp with a NaN bound")
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


def _relu6_of_x_plus_3_over_6(tr, real, x) -> Value:
    """clamp(x + 3, 0, 6) / 6, PyTorch's hardsigmoid (in x's dtype)."""
    v = as_value(tr, x, real.dtype)
    shifted = _binary_value(tr, "add", v, constant(tr, 3, v.dtype), v.dtype)
    clamped = tr.graph.emit(
        f"tgc.clamp {shifted.name} min {attr_float(0.0)} max {attr_float(6.0)} : {v.type}",
        [(v.dtype, v.shape)], tr.loc())[0]
    return _binary_value(tr, "div", clamped, constant(tr, 6, v.dtype), v.dtype)


@op("hardsigmoid")
def _hardsigmoid(tr, real, x, inplace=False):
    return _relu6_of_x_plus_3_over_6(tr, real, x)


@op("hardswish")
def _hardswish(tr, real, x, inplace=False):
    # PyTorch: x * min(max(x + 3, 0), 6) / 6, in that order.
    v = as_value(tr, x, real.dtype)
    shifted = _binary_value(tr, "add", v, constant(tr, 3, v.dtype), v.dtype)
    clamped = tr.graph.emit(
        f"tgc.clamp {shifted.name} min {attr_float(0.0)} max {attr_float(6.0)} : {v.type}",
        [(v.dtype, v.shape)], tr.loc())[0]
    prod = _binary_value(tr, "mul", v, clamped, v.dtype)
    return _binary_value(tr, "div", prod, constant(tr, 6, v.dtype), v.dtype)
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


@op("rrelu", "rrelu_with_noise")
def _rrelu(tr, real, x, *args, **kw):
    """Evaluation mode: leaky_relu with the mean slope (lower + upper) / 2
    (training draws random slopes: Unsupported, a graph break)."""
    if args and isinstance(args[0], torch.Tensor):  # rrelu_with_noise's noise
        args = args[1:]
    p = dict(zip(["lower", "upper", "training"], args))
    p.update(kw)
    if p.get("training"):
        raise Unsupported("rrelu in training mode (random slopes)")
    slope = (float(p.get("lower", 1.0 / 8)) + float(p.get("upper", 1.0 / 3))) / 2
    return _leaky_relu(tr, real, x, slope)


@op("leaky_relu_backward")
def _leaky_relu_backward(tr, real, grad, x, negative_slope, self_is_result=False):
    """grad where x > 0, grad * slope elsewhere (x may be the result: the
    sign is the same for a positive slope)."""
    dt = real.dtype
    g, v = as_value(tr, grad, dt), as_value(tr, x, dt)
    pos = _binary_value(tr, "cmp gt,", v, constant(tr, 0, dt), torch.bool)
    scaled = _binary_value(tr, "mul", g, constant(tr, float(negative_slope), dt), dt)
    return _where_values(tr, pos, g, scaled, dt)


@op("rrelu_with_noise_backward")
def _rrelu_backward(tr, real, grad, x, noise, lower, upper, training, self_is_result=False):
    """Evaluation mode: leaky_relu_backward with the mean slope."""
    if training:
        raise Unsupported("rrelu_with_noise_backward in training mode (the drawn slopes)")
    slope = (float(lower) + float(upper)) / 2
    return _leaky_relu_backward(tr, real, grad, x, slope, self_is_result)


# A device transfer inside the function (x.cpu(), t.to(x.device)) is the
# same value in the graph, which runs on one device: each result keeps the
# device eager PyTorch gives it (the tracer moves a returned result there,
# and an island's argument: Tracer.device).
@op("contiguous", "clone", "detach", "alias", "lift_fresh_copy", "cpu", "cuda")
def _identity(tr, real, x, *a, **k):
    return tval(tr, x)


@op("to", "type_as", "float", "double", "half", "bfloat16", "long", "int", "bool", "_to_copy")
def _to(tr, real, x, *a, **k):
    return convert(tr, tval(tr, x), real.dtype)


# Scalar operands that are numbers from tensor data (tgc._scalars) are read
# through as_value, with PyTorch's promotion of a Python number.
DATA_SCALARS.update(HANDLERS[n] for n in (
    "add", "radd", "sub", "rsub", "aten.rsub", "mul", "rmul", "maximum", "minimum",
    "remainder", "rremainder", "div", "rdiv", "floor_divide", "rfloordiv", "pow", "rpow",
    "eq", "ne", "lt", "le", "gt", "ge", "where", "masked_fill", "clamp", "clamp_min",
    "clamp_max"))
