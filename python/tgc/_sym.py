"""Symbolic sizes for the tracer: :class:`Expr` and :class:`SymInt`.

When traced Python code reads a dynamic size (``B, S, D = x.shape``,
``x.size(1)``), it gets a :class:`SymInt`: a Python integer that remembers
how it was computed from the input sizes. Arithmetic (``+ - * // % **``,
``-x``, ``abs``) gives new SymInts; passed to a torch function (``view``,
``expand``, ``zeros``, ``arange``, ``narrow``, slicing, ...), a SymInt
becomes a symbolic size in the graph, never a constant. Only a decision that
Python makes on a size turns into a guard, and the narrowest one that
explains the decision:

- a comparison (``if S > 10``, ``assert S % 8 == 0``, ``B == T``, builtin
  ``min``/``max``) records the relation it evaluated to (``S >= 11``,
  ``S % 8 == 0``, ``B == T``, or their negations);
- ``int()``, ``float()``, ``range()``, ``len()``, list indexing and string
  formatting need the number itself: an equality (an input size read alone
  is specialized, which makes the graph static in that size, as before).

Sizes of dynamic dims are at least 2 (sizes 0 and 1 are specialized, as in
PyTorch), so a guard that this implies (``S > 1``, ``S != 1``) is not
recorded.

An :class:`Expr` is a polynomial over input sizes with integer
coefficients, in a normal form (equal polynomials compare equal); a floor
division or modulo that does not simplify is an opaque atom of the
polynomial.
"""

from __future__ import annotations

import operator
from typing import Callable, Dict, FrozenSet, Optional, Tuple

__all__ = ["Expr", "SymInt", "SizeGuard", "is_sym", "hint_of"]

# A monomial is a sorted tuple of atoms; an atom is ("s", arg, dim), an
# input size, ("//" | "%", Expr, Expr), or ("d", value name, dim, sources):
# a size of a traced value that is not known as a function of the input
# sizes (guards cannot evaluate it; a decision on it specializes its
# sources).
Atom = tuple
Monomial = Tuple[Atom, ...]


def _atom_key(a: Atom) -> str:
    if a[0] == "s":
        return f"s{a[1]:06d}_{a[2]:03d}"
    if a[0] == "d":
        return f"d{a[1]}_{a[2]}"
    return f"~{a[0]}({a[1].key()},{a[2].key()})"


class OpaqueSize(Exception):
    """Evaluating an expression that holds an opaque size."""


class Expr:
    """An integer polynomial over input sizes, in normal form."""

    __slots__ = ("terms", "_key", "_hash")

    def __init__(self, terms: Dict[Monomial, int]):
        items = sorted(((m, c) for m, c in terms.items() if c != 0),
                       key=lambda mc: [_atom_key(a) for a in mc[0]])
        self.terms: Tuple[Tuple[Monomial, int], ...] = tuple(items)
        self._key: Optional[str] = None
        self._hash: Optional[int] = None

    # -- construction ---------------------------------------------------------

    @staticmethod
    def const(n: int) -> "Expr":
        return Expr({(): int(n)})

    @staticmethod
    def size(arg: int, dim: int) -> "Expr":
        return Expr({(("s", arg, dim),): 1})

    @staticmethod
    def opaque_size(name: str, dim: int, sources) -> "Expr":
        return Expr({(("d", name, dim, frozenset(sources)),): 1})

    @staticmethod
    def of(x) -> "Expr":
        return x if isinstance(x, Expr) else Expr.const(int(x))

    # -- queries --------------------------------------------------------------

    def key(self) -> str:
        if self._key is None:
            self._key = "+".join(
                f"{c}*" + "*".join(_atom_key(a) for a in m) for m, c in self.terms)
        return self._key

    def __eq__(self, other) -> bool:
        return isinstance(other, Expr) and self.key() == other.key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.key())
        return self._hash

    def constant(self) -> Optional[int]:
        """The value when the expression has no sizes in it."""
        if not self.terms:
            return 0
        if len(self.terms) == 1 and self.terms[0][0] == ():
            return self.terms[0][1]
        return None

    def single_size(self) -> Optional[Tuple[int, int]]:
        """(arg, dim) when the expression is one input size."""
        if len(self.terms) == 1:
            m, c = self.terms[0]
            if c == 1 and len(m) == 1 and m[0][0] == "s":
                return (m[0][1], m[0][2])
        return None

    def opaque(self) -> bool:
        """Whether a size of a traced value that is not a known function of
        the input sizes is part of the expression."""
        for m, _ in self.terms:
            for a in m:
                if a[0] == "d" or (a[0] != "s" and (a[1].opaque() or a[2].opaque())):
                    return True
        return False

    def sources(self) -> FrozenSet[Tuple[int, int]]:
        out = set()
        for m, _ in self.terms:
            for a in m:
                if a[0] == "s":
                    out.add((a[1], a[2]))
                elif a[0] == "d":
                    out |= a[3]
                else:
                    out |= a[1].sources() | a[2].sources()
        return frozenset(out)

    def evaluate(self, size: Callable[[int, int], int],
                 opaque: Optional[Callable[[str, int], int]] = None) -> int:
        """The value for input sizes `size(arg, dim)`; a size of a traced
        value (an opaque atom) is `opaque(name, dim)`, or OpaqueSize."""
        total = 0
        for m, c in self.terms:
            p = c
            for a in m:
                if a[0] == "s":
                    p *= size(a[1], a[2])
                elif a[0] == "d":
                    if opaque is None:
                        raise OpaqueSize(a[1], a[2])
                    p *= opaque(a[1], a[2])
                else:
                    num, den = a[1].evaluate(size, opaque), a[2].evaluate(size, opaque)
                    if den == 0:
                        raise ZeroDivisionError("a size expression divides by zero")
                    p *= num // den if a[0] == "//" else num % den
            total += p
        return total

    def lower_bound(self) -> Optional[int]:
        """A lower bound from the size ranges (every input size in the
        expression is >= 2), when every term is a non-negative multiple of
        sizes and non-negative atoms; None when unknown."""
        total = 0
        for m, c in self.terms:
            if not m:
                total += c
                continue
            if c < 0:
                return None
            p = c
            for a in m:
                if a[0] == "s":
                    p *= 2
                elif a[0] == "%":
                    den = a[2].constant()
                    if den is None or den <= 0:
                        return None
                    p *= 0
                elif a[0] == "d":  # a size of a traced value: >= 0
                    p *= 0
                else:  # a floor division of non-negative operands
                    lo = a[1].lower_bound()
                    den = a[2].constant()
                    if lo is None or lo < 0 or den is None or den <= 0:
                        # ((s - 5) // 2) can be negative: a product with it
                        # has no lower bound from its factors' (it claimed
                        # ((s - 5) // 2) ** 2 >= 4, 0 at s = 5: a guard lost)
                        return None
                    p *= lo // den
            total += p
        return total

    def __str__(self) -> str:
        return self.format(lambda arg, dim: f"arg{arg}_dim{dim}")

    def format(self, name: Callable[[int, int], str]) -> str:
        if not self.terms:
            return "0"

        def atom(a: Atom) -> str:
            if a[0] == "s":
                return name(a[1], a[2])
            if a[0] == "d":
                return f"{a[1]}.size({a[2]})"
            op = " // " if a[0] == "//" else " % "
            return "(" + a[1].format(name) + op + a[2].format(name) + ")"

        parts = []
        # The constant last: s0*s1 - 2.
        for m, c in sorted(self.terms, key=lambda mc: not mc[0]):
            body = "*".join(atom(a) for a in m)
            if not body:
                text = str(abs(c))
            elif abs(c) == 1:
                text = body
            else:
                text = f"{abs(c)}*{body}"
            if parts:
                parts.append(("- " if c < 0 else "+ ") + text)
            else:
                parts.append(("-" if c < 0 else "") + text)
        return " ".join(parts)

    # -- arithmetic -----------------------------------------------------------

    def __add__(self, other) -> "Expr":
        other = Expr.of(other)
        terms = dict(self.terms)
        for m, c in other.terms:
            terms[m] = terms.get(m, 0) + c
        return Expr(terms)

    def __neg__(self) -> "Expr":
        return Expr({m: -c for m, c in self.terms})

    def __sub__(self, other) -> "Expr":
        return self + (-Expr.of(other))

    def __mul__(self, other) -> "Expr":
        other = Expr.of(other)
        terms: Dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2, key=_atom_key))
                terms[m] = terms.get(m, 0) + c1 * c2
        return Expr(terms)

    def floordiv(self, other) -> "Expr":
        other = Expr.of(other)
        a, b = self.constant(), other.constant()
        if a is not None and b is not None and b != 0:
            return Expr.const(a // b)
        if b == 1:
            return self
        if b is not None and b > 0 and all(c % b == 0 for _, c in self.terms):
            return Expr({m: c // b for m, c in self.terms})
        exact = self._divide_by_monomial(other)
        if exact is not None:
            return exact
        if self == other:
            return Expr.const(1) if self.lower_bound() and self.lower_bound() > 0 \
                else Expr({(("//", self, other),): 1})
        return Expr({(("//", self, other),): 1})

    def _divide_by_monomial(self, other: "Expr") -> Optional["Expr"]:
        """self / other when other is one monomial of input sizes (which
        are positive) dividing every term of self exactly."""
        if len(other.terms) != 1:
            return None
        dm, dc = other.terms[0]
        if dc <= 0 or not dm or any(a[0] != "s" for a in dm):
            return None
        out: Dict[Monomial, int] = {}
        for m, c in self.terms:
            rest = list(m)
            for a in dm:
                if a not in rest:
                    return None
                rest.remove(a)
            if c % dc:
                return None
            out[tuple(rest)] = c // dc
        return Expr(out)

    def mod(self, other) -> "Expr":
        other = Expr.of(other)
        a, b = self.constant(), other.constant()
        if a is not None and b is not None and b != 0:
            return Expr.const(a % b)
        if b == 1:
            return Expr.const(0)
        if b is not None and b > 0 and all(c % b == 0 for _, c in self.terms):
            return Expr.const(0)
        if self._divide_by_monomial(other) is not None:
            return Expr.const(0)
        return Expr({(("%", self, other),): 1})


class SizeGuard:
    """A condition on input sizes that a traced decision depends on:
    ``expr op 0`` with op one of ``==``, ``!=``, ``>=``; or ``expr % mod
    == 0`` / ``!= 0`` when ``mod`` is set."""

    __slots__ = ("expr", "op", "reason", "text")

    def __init__(self, expr: Expr, op: str, reason: str, text: str):
        self.expr, self.op, self.reason, self.text = expr, op, reason, text

    def holds(self, size: Callable[[int, int], int]) -> bool:
        try:
            v = self.expr.evaluate(size)
        except ZeroDivisionError:
            return False
        if self.op == "==":
            return v == 0
        if self.op == "!=":
            return v != 0
        return v >= 0

    def describe(self) -> str:
        return f"{self.text}  ({self.reason})"

    def __eq__(self, other) -> bool:
        return isinstance(other, SizeGuard) and (self.expr, self.op) == (other.expr, other.op)

    def __hash__(self) -> int:
        return hash((self.expr, self.op))


def is_sym(x) -> bool:
    return isinstance(x, SymInt)


def hint_of(x):
    """The concrete value of a SymInt (anything else is returned as is)."""
    return x.hint if isinstance(x, SymInt) else x


def _binary(fn: Callable, expr_fn: Callable, reflected: bool = False):
    def method(self, other):
        if isinstance(other, bool) or not isinstance(other, (int, SymInt)):
            if isinstance(other, float):
                return fn(*((other, self._number("float arithmetic")) if reflected
                            else (self._number("float arithmetic"), other)))
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        value = fn(hint_of(a), hint_of(b))
        expr = expr_fn(Expr.of(a.expr if isinstance(a, SymInt) else a),
                       Expr.of(b.expr if isinstance(b, SymInt) else b), self, a, b)
        return self._make(expr, value)

    return method


def _comparison(op):
    def method(self, other):
        return self._compare(other, op)

    method.__name__ = f"__{op.__name__}__"
    return method


class SymInt:
    """A Python int computed from dynamic input sizes during a trace.

    ``hint`` is its value in the traced call; ``expr`` says how it is
    computed from the input sizes. The tracer it belongs to records the
    guards its comparisons and conversions need."""

    __slots__ = ("tracer", "expr", "hint")

    def __init__(self, tracer, expr: Expr, hint: int):
        self.tracer = tracer
        self.expr = expr
        self.hint = int(hint)

    def _make(self, expr: Expr, value: int):
        c = expr.constant()
        if c is not None:
            return c
        return SymInt(self.tracer, expr, value)

    def _number(self, what: str) -> int:
        """The value, for a use that needs the number itself."""
        self.tracer.guard_value(self, what)
        return self.hint

    # Python's integer protocol ------------------------------------------------

    def __index__(self) -> int:
        return self._number("size used as an index or count")

    def __int__(self) -> int:
        return self._number("int() of a size")

    def __float__(self) -> float:
        return float(self._number("float() of a size"))

    def __bool__(self) -> bool:
        return self._compare(0, operator.ne)

    def __str__(self) -> str:
        return str(self._number("str() of a size"))

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return format(self._number("formatting of a size"), spec)

    def __hash__(self) -> int:
        return hash(self._number("hash() of a size"))

    def __round__(self, ndigits=None):
        return self if ndigits is None else round(self._number("round()"), ndigits)

    def __trunc__(self):
        return self

    __floor__ = __ceil__ = __trunc__

    def __pos__(self):
        return self

    def __neg__(self):
        return self._make(-self.expr, -self.hint)

    def __abs__(self):
        return self if self._compare(0, operator.ge) else -self

    __add__ = _binary(operator.add, lambda a, b, *_: a + b)
    __radd__ = _binary(operator.add, lambda a, b, *_: a + b, reflected=True)
    __sub__ = _binary(operator.sub, lambda a, b, *_: a - b)
    __rsub__ = _binary(operator.sub, lambda a, b, *_: a - b, reflected=True)
    __mul__ = _binary(operator.mul, lambda a, b, *_: a * b)
    __rmul__ = _binary(operator.mul, lambda a, b, *_: a * b, reflected=True)

    def _divmod_expr(kind):
        def expr(a: Expr, b: Expr, self, ra, rb):
            # A divisor that is a size expression: its sign decides the
            # rounding, so it is guarded positive (or negative).
            if b.constant() is None:
                self.tracer.guard_compare(b, 0, operator.gt if hint_of(rb) > 0 else operator.lt,
                                          "the divisor of " + ("//" if kind == "//" else "%"))
            elif b.constant() == 0:
                raise ZeroDivisionError("integer division or modulo by zero")
            return a.floordiv(b) if kind == "//" else a.mod(b)

        return expr

    __floordiv__ = _binary(operator.floordiv, _divmod_expr("//"))
    __rfloordiv__ = _binary(operator.floordiv, _divmod_expr("//"), reflected=True)
    __mod__ = _binary(operator.mod, _divmod_expr("%"))
    __rmod__ = _binary(operator.mod, _divmod_expr("%"), reflected=True)
    del _divmod_expr

    def __divmod__(self, other):
        return self // other, self % other

    def __truediv__(self, other):
        return self._number("true division") / hint_of(other)

    def __rtruediv__(self, other):
        return hint_of(other) / self._number("true division")

    def __pow__(self, other, mod=None):
        if mod is None and isinstance(other, int) and not isinstance(other, bool) and 0 <= other <= 8:
            out = 1
            for _ in range(other):
                out = self * out
            return out
        return pow(self._number("**"), hint_of(other), mod)

    def __rpow__(self, other):
        return pow(hint_of(other), self._number("**"))

    def _compare(self, other, op) -> bool:
        if isinstance(other, float):
            return op(float(self._number("comparison with a float")), other)
        if isinstance(other, bool) or not isinstance(other, (int, SymInt)):
            return NotImplemented
        return self.tracer.guard_compare(self.expr, other, op, "comparison",
                                         lhs_hint=self.hint)

    __eq__ = _comparison(operator.eq)
    __ne__ = _comparison(operator.ne)
    __lt__ = _comparison(operator.lt)
    __le__ = _comparison(operator.le)
    __gt__ = _comparison(operator.gt)
    __ge__ = _comparison(operator.ge)

    # Bit operations and the rest need the number.
    def __and__(self, o):
        return self._number("&") & hint_of(o)

    def __or__(self, o):
        return self._number("|") | hint_of(o)

    def __lshift__(self, o):
        return self * (1 << hint_of(o)) if isinstance(o, int) else self._number("<<") << hint_of(o)

    def __rshift__(self, o):
        return self._number(">>") >> hint_of(o)

    __rand__, __ror__ = __and__, __or__


def relation(lhs: Expr, rhs, op) -> Tuple[Expr, str, bool]:
    """``lhs op rhs`` as ``(expr, kind, negate)`` where the relation is
    ``expr kind 0`` with kind ``==`` or ``>=``."""
    diff = lhs - Expr.of(rhs.expr if isinstance(rhs, SymInt) else rhs)
    if op is operator.eq:
        return diff, "==", False
    if op is operator.ne:
        return diff, "==", True
    if op is operator.ge:
        return diff, ">=", False
    if op is operator.gt:
        return diff - 1, ">=", False
    if op is operator.le:
        return -diff, ">=", False
    if op is operator.lt:
        return -diff - 1, ">=", False
    raise ValueError(op)


def guard_for(expr: Expr, kind: str, holds: bool) -> Tuple[Expr, str]:
    """The guard that records the outcome `holds` of ``expr kind 0``."""
    if kind == "==":
        return expr, "==" if holds else "!="
    # not (e >= 0)  <=>  -e - 1 >= 0
    return (expr, ">=") if holds else (-expr - 1, ">=")


def implied(expr: Expr, op: str) -> Optional[bool]:
    """Whether ``expr op 0`` always holds (True), never holds (False) or
    depends on the sizes (None), from constants and the size ranges."""
    c = expr.constant()
    if c is not None:
        return {"==": c == 0, "!=": c != 0, ">=": c >= 0}[op]
    lo = expr.lower_bound()
    if lo is None:
        lo_neg = (-expr).lower_bound()
        if lo_neg is not None and lo_neg > 0:  # expr < 0 always
            return {"==": False, "!=": True, ">=": False}[op]
        return None
    if op == ">=":
        return True if lo >= 0 else None
    if lo > 0:
        return op == "!="
    return None
