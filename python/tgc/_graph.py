"""The graph being recorded: values with symbolic shapes, ops as MLIR text.

A traced function becomes one ``func.func`` in the ``tgc`` dialect. Every
value knows its dtype and its shape, whose sizes are either ints (static)
or :class:`Dyn` objects (dynamic, printed ``?``). A ``Dyn`` remembers which
input sizes it was computed from, so that a Python read of the size can
specialize exactly those inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, List, Optional, Sequence, Tuple, Union

import torch

from ._names import mlir_string

__all__ = ["Dyn", "Value", "Graph", "Unsupported", "mlir_dtype", "format_type"]


class Unsupported(Exception):
    """An op, argument or Python construct TGC cannot compile (yet)."""

    def __init__(self, message: str, where: str = "", fatal: bool = False):
        super().__init__(message + (f" (at {where})" if where else ""))
        self.message = message
        self.where = where
        self.fatal = fatal


class Dyn:
    """A dynamic size. ``sources`` are the (argument, dim) input sizes it is
    computed from; ``value`` is its size in the traced call; ``expr``, when
    known, the :class:`tgc._sym.Expr` computing it from the input sizes."""

    __slots__ = ("sources", "value", "expr")

    def __init__(self, sources: Iterable[Tuple[int, int]], value: int, expr=None):
        self.sources = frozenset(sources)
        self.value = int(value)
        self.expr = expr

    def __repr__(self) -> str:
        return f"Dyn({sorted(self.sources)}={self.value})"


Size = Union[int, Dyn]

_DTYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float64: "f64",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int8: "i8",
    torch.bool: "i1",
    # uint8 is computed on as i32 holding 0..255 (the dialect's integers are
    # signless and its arithmetic signed): stored as i8 in arguments and
    # results (`Value.storage`), widened after reading and wrapped modulo
    # 256 after every op that can leave the range (Graph.emit).
    torch.uint8: "i32",
}

# tgc_dtype codes of the runtime ABI (tgc_runtime.h).
DTYPE_CODES = {
    torch.float32: 0,
    torch.float16: 1,
    torch.bfloat16: 2,
    torch.float64: 3,
    torch.int64: 4,
    torch.int32: 5,
    torch.int8: 6,
    torch.bool: 7,
    torch.uint8: 8,
}
CODE_DTYPES = {v: k for k, v in DTYPE_CODES.items()}


def mlir_dtype(dtype: torch.dtype) -> str:
    try:
        return _DTYPES[dtype]
    except KeyError:
        raise Unsupported(f"dtype {dtype} is not supported by TGC") from None


def size_value(s: Size) -> int:
    return s.value if isinstance(s, Dyn) else s


def format_type(dtype: torch.dtype, shape: Sequence[Size], storage: bool = False) -> str:
    dims = "".join(["?x" if isinstance(s, Dyn) else f"{s}x" for s in shape])
    element = "i8" if storage and dtype == torch.uint8 else mlir_dtype(dtype)
    return f"tensor<{dims}{element}>"


# Ops whose uint8 results stay in 0..255 when their operands are: no wrap
# after them (see Graph.emit).
_KEEPS_U8_RANGE = frozenset(
    "tgc." + m for m in (
        "constant maximum minimum where remainder div abs relu reshape permute "
        "expand slice concat squeeze unsqueeze gather index_select embedding "
        "amax amin max min topk write_out").split())


def widen_u8(src: str, dst: str, shape: Sequence[Size], fresh: Callable[[], str]) -> List[str]:
    """Lines defining `dst` (uint8 computed as i32) from `src`, its i8
    storage: sign-extended, then taken modulo 256."""
    wide = format_type(torch.uint8, shape)
    raw = fresh()
    return [f"{raw} = tgc.convert {src} : {format_type(torch.uint8, shape, True)} -> {wide}"
            ] + wrap_u8(raw, dst, shape, fresh)


def wrap_u8(src: str, dst: str, shape: Sequence[Size], fresh: Callable[[], str]) -> List[str]:
    """Lines defining `dst` as `src` modulo 256 (floor modulo: -1 becomes
    255, as a uint8 wraps)."""
    k = fresh()
    wide = format_type(torch.uint8, shape)
    return [f"{k} = tgc.constant dense<256> : tensor<i32>",
            f"{dst} = tgc.remainder {src}, {k} : {wide}, tensor<i32> -> {wide}"]


def narrow_u8(src: str, dst: str, shape: Sequence[Size]) -> str:
    """The line defining `dst`, the i8 storage of the uint8 value `src`."""
    return (f"{dst} = tgc.convert {src} : {format_type(torch.uint8, shape)} -> "
            f"{format_type(torch.uint8, shape, True)}")


@dataclass(eq=False)
class Value:
    """An SSA value of the graph."""

    name: str
    dtype: torch.dtype
    shape: List[Size]
    # A uint8 argument as passed (i8), not yet widened (Graph.widen).
    storage: bool = False

    @property
    def type(self) -> str:
        return format_type(self.dtype, self.shape, self.storage)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def concrete(self) -> List[int]:
        return [size_value(s) for s in self.shape]


def float_literal(value: float, dtype: torch.dtype) -> str:
    """An exact MLIR literal: the bit pattern of `value` rounded to `dtype`
    as PyTorch rounds it."""
    t = torch.tensor([value], dtype=torch.float64).to(dtype)
    bits = {
        torch.float32: torch.int32,
        torch.float16: torch.int16,
        torch.bfloat16: torch.int16,
        torch.float64: torch.int64,
    }[dtype]
    width = {torch.int32: 8, torch.int16: 4, torch.int64: 16}[bits]
    raw = int(t.view(bits).item()) & ((1 << (width * 4)) - 1)
    return f"0x{raw:0{width}X}"


def scalar_literal(value, dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "true" if value else "false"
    if dtype.is_floating_point:
        return float_literal(float(value), dtype)
    if dtype == torch.uint8:
        return str(int(value) % 256)  # as PyTorch converts a number to uint8
    bits = {torch.int8: 8, torch.int32: 32, torch.int64: 64}.get(dtype)
    if bits is not None:  # wrapped to the type, two's complement (x + 300 of int8)
        half = 1 << (bits - 1)
        return str((int(value) + half) % (1 << bits) - half)
    return str(int(value))


def typed_literal(value, dtype: torch.dtype) -> str:
    """`value` as a typed attribute, `lit : type` (a bool as `1 : i1`:
    `true : i1` would parse as `true` followed by the op's own type)."""
    if dtype == torch.bool:
        return f"{int(bool(value))} : i1"
    return f"{scalar_literal(value, dtype)} : {mlir_dtype(dtype)}"


def attr_float(value: float) -> str:
    """An f64 attribute literal that round-trips (MLIR needs the '.')."""
    if math.isnan(value) or math.isinf(value):
        return float_literal(value, torch.float64)
    return "%.17e" % float(value)


@dataclass
class Graph:
    """Ops in the order they were recorded, then the function around them."""

    name: str = "traced"
    args: List[Value] = field(default_factory=list)
    lines: List[str] = field(default_factory=list)
    counter: int = 0
    # Every tensor value by name (args and op results): the graph-break
    # partitioner types the arguments of each region.
    values: dict = field(default_factory=dict)

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    # Argument numbers, counting the holes (see add_hole).
    nargs: int = 0
    # Widened uint8 arguments: value name -> argument name (see widen).
    widened: dict = field(default_factory=dict)
    # The model's name of each argument (`x`, `self.fc.weight`; see
    # tgc._names), written as the argument's location.
    labels: dict = field(default_factory=dict)

    def add_arg(self, dtype: torch.dtype, shape: Sequence[Size],
                label: Optional[str] = None) -> Value:
        """A new argument (as passed: see widen)."""
        mlir_dtype(dtype)  # an unsupported dtype fails here, with its name
        v = Value(f"%arg{self.nargs}", dtype, list(shape), dtype == torch.uint8)
        self.nargs += 1
        self.args.append(v)
        self.values[v.name] = v
        if label:
            self.labels[v.name] = label
        return v

    def arg_loc(self, name: str) -> str:
        """` loc("x")` for an argument the model names, else ""."""
        label = self.labels.get(name)
        return f' loc("{mlir_string(label)}")' if label else ""

    def widen(self, v: Value) -> Value:
        """The value ops compute on for argument `v`: `v` itself, or a
        uint8 argument widened from its storage."""
        if not v.storage:
            return v
        w = Value(self.fresh(), v.dtype, list(v.shape))
        self.lines.extend(widen_u8(v.name, w.name, v.shape, self.fresh))
        self.values[w.name] = w
        self.widened[w.name] = v.name
        return w

    def narrow(self, v: Value) -> Value:
        """`v` as stored in arguments and results (uint8 as i8)."""
        if v.dtype != torch.uint8 or v.storage:
            return v
        n = Value(self.fresh(), v.dtype, list(v.shape), True)
        self.lines.append(narrow_u8(v.name, n.name, v.shape))
        self.values[n.name] = n
        return n

    def add_hole(self) -> str:
        """Skips an argument number (an input that stays an eager value: a
        dtype TGC does not compile); returns the name it would have had,
        so that arguments keep the numbers of the inputs they are."""
        name = f"%arg{self.nargs}"
        self.nargs += 1
        return name

    def emit(
        self,
        text: str,
        results: Sequence[Tuple[torch.dtype, Sequence[Size]]],
        loc: str = "",
    ) -> List[Value]:
        """Adds one op; `text` is everything after "= " (or the whole op
        when it has no results)."""
        values = [Value(self.fresh(), d, list(s)) for d, s in results]
        for v in values:
            self.values[v.name] = v
        prefix = ", ".join(v.name for v in values)
        line = f"{prefix} = {text}" if values else text
        if loc:
            line += f" loc({loc})"
        self.lines.append(line)
        # uint8 results wrap as PyTorch's do (200 + 100 is 44).
        if any(v.dtype == torch.uint8 for v in values) and \
                text.split(" ", 1)[0] not in _KEEPS_U8_RANGE:
            for k, v in enumerate(values):
                if v.dtype == torch.uint8:
                    w = Value(self.fresh(), v.dtype, list(v.shape))
                    self.lines.extend(wrap_u8(v.name, w.name, v.shape, self.fresh))
                    self.values[w.name] = w
                    values[k] = w
        return values

    def to_mlir(self, outputs: Sequence[Value]) -> str:
        outputs = [self.narrow(o) for o in outputs]
        params = ", ".join(f"{a.name}: {a.type}" + (" {tgc.unsigned}" if a.storage else "")
                           + self.arg_loc(a.name) for a in self.args)
        rtypes = ", ".join(o.type for o in outputs)
        ret = f" -> ({rtypes})" if outputs else ""
        body = "\n".join("  " + l for l in self.lines)
        if outputs:
            names = ", ".join(o.name for o in outputs)
            body += f"\n  return {names} : {rtypes}"
        else:
            body += "\n  return"
        return f"func.func @{self.name}({params}){ret} {{\n{body}\n}}\n"
