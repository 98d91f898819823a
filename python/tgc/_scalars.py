"""Numbers computed from tensor data, in FX graphs: ``aten.item``.

An exported program (or any FX graph) that reads a number out of a tensor
(``int(t)``, ``t.item()``, ``float(x.sum())``) and goes on computing with
it has the data flow in its nodes: the number feeds ``operator.add`` nodes,
comparisons, ``torch.sym_float``, scalar operands of tensor operators, the
graph's outputs. TGC keeps such a number in the compiled graph as a 0-d
tensor (``i64`` for a Python int, ``f64`` for a float, ``i1`` for a bool):
a :class:`DataScalar`. Python's arithmetic on it is recorded with Python's
semantics (int / int is a float, // and % floor, comparisons are bools),
an operator that takes it as a scalar operand (``x + s``, ``where(c, x,
s)``, ``clamp(x, max=s)``) reads it with PyTorch's promotion of a Python
number, and a returned one becomes a Python number again after the call.

Any other use, where the number itself must be known to trace (a size:
``x.view(int(n))``; an operator without support for it; a Python function
such as ``math.log``), is a graph break: the call runs eagerly with the
number of the current call (the compiled region before it returns the 0-d
tensor). A number that such a call returns is a DataScalar again (a 0-d
argument of the next region). The tracer of plain Python functions does
not create DataScalars (it cannot see what Python does with a number):
there ``.item()`` stays data-dependent control flow (see docs/python.md).

A one-element *input* read as a number is specialized on its value first
(Dynamo lifts module constants such as LayerNorm's eps that way); once its
value has changed, the next compile reads it as a DataScalar.

Differences from Python, documented in docs/python.md: integers are 64-bit
in the graph (Python's are unbounded), and a division by a zero that only
the data holds gives PyTorch's tensor answer (inf, or an arbitrary integer)
where Python raises ZeroDivisionError.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Optional

import torch

from ._graph import Unsupported, Value, format_type

_DTYPES = {bool: torch.bool, int: torch.int64, float: torch.float64}


class DataScalar:
    """A Python number computed from tensor data while tracing an FX graph:
    `v`, a 0-d graph value (i64, f64 or i1), and `value`, the traced call's
    number (what the eager run computed). Reading the number in Python
    (int(), bool(), comparing it, hashing it by value) is refused with
    Unsupported: the operator doing so becomes a graph break."""

    __slots__ = ("v", "kind", "value")

    def __init__(self, v: Value, kind: type, value):
        self.v = v
        self.kind = kind
        self.value = value

    @property
    def hint(self):
        """The traced call's number (the eager run of the trace uses it)."""
        return self.value

    def _refuse(self, *_args, **_kwargs):
        raise Unsupported(
            f"a number computed from tensor data ({self.kind.__name__} {self.v.name}) "
            "is read by Python code TGC cannot record")

    __int__ = __float__ = __index__ = __bool__ = __complex__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse  # type: ignore
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _refuse
    __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = _refuse
    __round__ = __trunc__ = __floor__ = __ceil__ = _refuse
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"DataScalar({self.kind.__name__} {self.v.name}, traced {self.value!r})"


def contains(x, leaf: Callable[[Any], bool]) -> bool:
    """Whether `leaf` holds for an element of `x`, in tuples, lists, dicts
    and slices (the containers of call arguments)."""
    if leaf(x):
        return True
    if isinstance(x, (list, tuple)):
        return any(contains(e, leaf) for e in x)
    if isinstance(x, dict):
        return any(contains(e, leaf) for e in x.values())
    if isinstance(x, slice):
        return contains((x.start, x.stop, x.step), leaf)
    return False


_CONTAINERS = (list, tuple, dict, slice)


def contains_type(x, types) -> bool:
    """`contains(x, lambda e: isinstance(e, types))`, without a call per
    element: the tracer asks it of every call's arguments."""
    if isinstance(x, types):
        return True
    if isinstance(x, dict):
        x = x.values()
    elif isinstance(x, slice):
        x = (x.start, x.stop, x.step)
    elif not isinstance(x, (list, tuple)):
        return False
    for e in x:
        if isinstance(e, types) or (isinstance(e, _CONTAINERS) and contains_type(e, types)):
            return True
    return False


def replace(x, leaf: Callable[[Any], bool], fn: Callable[[Any], Any]):
    """`x` with each element `leaf` holds for replaced by fn(element); the
    containers of `contains` rebuilt (namedtuples keep their type)."""
    if leaf(x):
        return fn(x)
    if not contains(x, leaf):
        return x
    if isinstance(x, (list, tuple)):
        items = [replace(e, leaf, fn) for e in x]
        if isinstance(x, list):
            return items
        return type(x)(*items) if hasattr(type(x), "_fields") else tuple(items)
    if isinstance(x, dict):
        return {k: replace(e, leaf, fn) for k, e in x.items()}
    return slice(*(replace(e, leaf, fn) for e in (x.start, x.stop, x.step)))


def _is_data(x) -> bool:
    return isinstance(x, DataScalar)


def has_data(x) -> bool:
    return contains_type(x, DataScalar)


def kind_of(value) -> Optional[type]:
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    return None


def from_tensor(tr, t: torch.Tensor, value) -> DataScalar:
    """The DataScalar of `t.item()` (= `value`, already computed)."""
    kind = kind_of(value)
    if kind is None:
        raise Unsupported(f"item() of a {t.dtype} tensor (a {type(value).__name__})")
    from ._ops.core import convert
    from ._ops.shapes import _reshape_to

    v = tr.value_of(t)
    if v.rank:
        v = _reshape_to(tr, v, [])
    return DataScalar(convert(tr, v, _DTYPES[kind]), kind, value)


def from_size(tr, s) -> DataScalar:
    """A symbolic size (a SymInt) as a number in the graph: where Python
    makes a float of it (`numel / C`), which a SymInt would only give as
    the traced call's value (a guard on it)."""
    from ._ops.core import sym_tensor

    return DataScalar(sym_tensor(tr, s.expr), int, s.hint)


def operand(tr, x, dtype: torch.dtype) -> Value:
    """A DataScalar, a Python number or a SymInt as a 0-d value in `dtype`."""
    from ._ops.core import as_value

    if isinstance(x, DataScalar):
        from ._ops.core import convert

        return convert(tr, x.v, dtype)
    return as_value(tr, x, dtype)


def _kind(x) -> type:
    if isinstance(x, DataScalar):
        return x.kind
    from ._sym import SymInt

    if isinstance(x, SymInt):
        return int
    k = kind_of(x)
    if k is None:
        raise Unsupported(f"arithmetic of a number from tensor data with a {type(x).__name__}")
    return k


def _value(x):
    if isinstance(x, DataScalar):
        return x.value
    hint = getattr(x, "hint", None)
    return x if hint is None else hint


def _numeric(*kinds: type) -> type:
    """Python's result kind of arithmetic (a bool counts as an int)."""
    return float if float in kinds else int


def _emit(tr, mnemonic: str, a: Value, b: Optional[Value], dtype: torch.dtype,
          extra: str = "") -> Value:
    rt = format_type(dtype, [])
    if b is None:
        return tr.graph.emit(f"tgc.{mnemonic} {a.name} : {a.type}", [(dtype, [])],
                             tr.loc())[0]
    return tr.graph.emit(f"tgc.{mnemonic} {a.name}, {b.name}{extra} : {a.type}, {b.type} -> {rt}",
                         [(dtype, [])], tr.loc())[0]


_MAX = {max} | ({torch.sym_max} if hasattr(torch, "sym_max") else set())
_MIN = {min} | ({torch.sym_min} if hasattr(torch, "sym_min") else set())
_ARITH = {operator.add: "add", operator.sub: "sub", operator.mul: "mul",
          operator.mod: "remainder"}
_COMPARE = {operator.eq: "eq", operator.ne: "ne", operator.lt: "lt", operator.le: "le",
            operator.gt: "gt", operator.ge: "ge"}


def _binary(tr, fn: Callable, a, b) -> DataScalar:
    ka, kb = _kind(a), _kind(b)
    value = fn(_value(a), _value(b))  # Python's answer for the traced call
    if fn in _COMPARE:
        dtype = _DTYPES[_numeric(ka, kb)]
        r = _emit(tr, f"cmp {_COMPARE[fn]},", operand(tr, a, dtype), operand(tr, b, dtype),
                  torch.bool)
        return DataScalar(r, bool, value)
    if fn in (operator.and_, operator.or_, operator.xor):
        if ka is not bool or kb is not bool:
            raise Unsupported("bitwise operations on integers from tensor data")
        x, y = operand(tr, a, torch.bool), operand(tr, b, torch.bool)
        if fn is operator.xor:
            r = _emit(tr, "cmp ne,", x, y, torch.bool)
        else:
            r = _emit(tr, "logical_and" if fn is operator.and_ else "logical_or", x, y,
                      torch.bool)
        return DataScalar(r, bool, value)
    kind = _numeric(ka, kb)
    if fn is operator.truediv:
        kind = float
    dtype = _DTYPES[kind]
    x, y = operand(tr, a, dtype), operand(tr, b, dtype)
    if fn in _ARITH:
        r = _emit(tr, _ARITH[fn], x, y, dtype)
    elif fn is operator.truediv:
        r = _emit(tr, "div", x, y, dtype)
    elif fn is operator.floordiv:
        if kind is int:
            r = _emit(tr, "div", x, y, dtype, " rounding = floor")
        else:
            r = _emit(tr, "floor", _emit(tr, "div", x, y, dtype), None, dtype)
    elif fn is operator.pow:
        # int ** int is an int only for a non-negative exponent, which the
        # graph cannot know of a number from the data.
        if kind is int and not (isinstance(b, int) and not isinstance(b, bool) and b >= 0):
            raise Unsupported("int ** int with an exponent from tensor data")
        r = _emit(tr, "pow", x, y, dtype)
    elif fn in _MAX or fn in _MIN:
        # Python's max(2, 3.5) is the float, max(5, 3.5) the int: the kind
        # of the result would depend on the data.
        if ka is not kb:
            raise Unsupported("max/min of an int and a float from tensor data")
        r = _emit(tr, "maximum" if fn in _MAX else "minimum", x, y, dtype)
    else:
        raise Unsupported(f"{getattr(fn, '__name__', fn)} of numbers from tensor data")
    return DataScalar(r, kind_of(value) or kind, value)


def _unary(tr, fn: Callable, a) -> DataScalar:
    ka = _kind(a)
    value = fn(_value(a))
    kv = kind_of(value)
    if kv is None:
        raise Unsupported(f"{getattr(fn, '__name__', fn)} of a number from tensor data")
    if fn in (operator.not_, getattr(torch, "sym_not", operator.not_)):
        x = operand(tr, a, _DTYPES[ka])
        if ka is bool:
            return DataScalar(_emit(tr, "logical_not", x, None, torch.bool), bool, value)
        zero = operand(tr, 0, x.dtype)
        return DataScalar(_emit(tr, "cmp eq,", x, zero, torch.bool), bool, value)
    if fn is operator.truth or fn is bool:
        x = operand(tr, a, _DTYPES[ka])
        if ka is bool:
            return DataScalar(x, bool, value)
        zero = operand(tr, 0, x.dtype)
        return DataScalar(_emit(tr, "cmp ne,", x, zero, torch.bool), bool, value)
    if fn in (getattr(torch, "sym_float", float), float):
        return DataScalar(operand(tr, a, torch.float64), float, value)
    if fn in (getattr(torch, "sym_int", int), int, math.trunc):
        # float -> int truncates toward zero, as Python's int() does.
        return DataScalar(operand(tr, a, torch.int64), int, value)
    if fn in (math.floor, math.ceil):
        x = operand(tr, a, _DTYPES[_numeric(ka)])
        if ka is float:
            x = _emit(tr, "floor" if fn is math.floor else "ceil", x, None, x.dtype)
        from ._ops.core import convert

        return DataScalar(convert(tr, x, torch.int64), int, value)
    if fn is math.sqrt:
        x = operand(tr, a, torch.float64)
        return DataScalar(_emit(tr, "sqrt", x, None, torch.float64), float, value)
    kind = _numeric(ka)
    x = operand(tr, a, _DTYPES[kind])
    if fn is operator.neg:
        return DataScalar(_emit(tr, "neg", x, None, x.dtype), kind, value)
    if fn is operator.pos:
        return DataScalar(x, kind, value)
    if fn in (operator.abs, abs):
        return DataScalar(_emit(tr, "abs", x, None, x.dtype), kind, value)
    raise Unsupported(f"{getattr(fn, '__name__', fn)} of a number from tensor data")


_BINARY = set(_ARITH) | set(_COMPARE) | {
    operator.truediv, operator.floordiv, operator.pow, operator.and_, operator.or_,
    operator.xor} | _MAX | _MIN
_UNARY = {operator.neg, operator.pos, operator.abs, abs, operator.not_, operator.truth,
          bool, float, int, math.trunc, math.floor, math.ceil, math.sqrt}
for _name in ("sym_not", "sym_float", "sym_int"):
    if hasattr(torch, _name):
        _UNARY.add(getattr(torch, _name))


def call(tr, target, args, kwargs) -> Any:
    """An FX node's Python-level call on DataScalars (operator.add, ...):
    recorded, or NotImplemented when it is not one TGC records."""
    if kwargs:
        return NotImplemented
    try:
        if target in _BINARY and len(args) == 2:
            return _binary(tr, target, args[0], args[1])
        if target in _UNARY and len(args) == 1:
            return _unary(tr, target, args[0])
    except Unsupported:
        return NotImplemented
    return NotImplemented


def concrete(x):
    """`x` with each DataScalar replaced by its traced number."""
    return replace(x, _is_data, lambda d: d.value)


def new_slot_value(tr, value) -> Optional[DataScalar]:
    """A number an island returns, as a 0-d argument of the next region
    (None: not a Python number)."""
    kind = kind_of(value)
    if kind is None:
        return None
    v = tr.graph.add_arg(_DTYPES[kind], [])
    return DataScalar(v, kind, value)


def to_tensor(value, kind: type, device) -> torch.Tensor:
    return torch.tensor(kind(value), dtype=_DTYPES[kind], device=device)


__all__ = ["DataScalar", "has_data", "from_tensor", "operand", "call", "concrete",
           "new_slot_value", "to_tensor", "kind_of"]
