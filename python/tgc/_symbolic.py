"""Dynamic sizes in training traces (docs/training.md, "Dynamic batch sizes").

A training specialization of ``tgc.compile`` (tgc._autograd) is traced by
``make_fx``. With PyTorch's symbolic shapes (2.x) the trace runs on fake
tensors whose dynamic dims (a batch size that changed between calls, or
every dim of the arguments with ``dynamic=True``) are symbols of one
``ShapeEnv``; the joint graph then computes sizes from its inputs'
(``aten.sym_size`` and Python arithmetic nodes) instead of baking the
example's numbers into its views and factories. What the trace decided on
a size is in the ShapeEnv's guards: compiled once per specialization into
one Python expression over the call's tensors (:class:`Session.guards`).

The backward graph reads no forward node's size: a :class:`SizeEmitter`
rebuilds every size it needs from its own inputs' (the saved tensors' and
the gradients'), so nothing but tensors crosses from the forward to the
backward. A size none of them has (rare: the batch size of a model whose
backward reads only flattened activations) fails the dynamic trace, and
the call is traced for its sizes instead (a recompile per size, logged).

PyTorch 1.13 has no usable symbolic ``make_fx`` (`available()` is False):
there a training specialization is traced for one set of sizes.
"""

from __future__ import annotations

import operator
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import torch
import torch.fx

_SYM_TYPES = tuple(t for t in (getattr(torch, "SymInt", None), getattr(torch, "SymFloat", None),
                               getattr(torch, "SymBool", None)) if t is not None)


class SymbolicUnsupported(Exception):
    """A dynamic trace cannot be made; the caller traces for the call's
    sizes instead."""


def available() -> bool:
    """Whether this PyTorch traces with symbolic sizes (2.1 and later)."""
    try:
        from torch.fx.experimental import symbolic_shapes
        from torch._subclasses import fake_tensor
    except ImportError:
        return False
    return all(hasattr(symbolic_shapes, n) for n in
               ("DimDynamic", "ShapeEnv", "StatelessSymbolicContext", "SYMPY_INTERP")) and \
        hasattr(symbolic_shapes.ShapeEnv, "produce_guards_expression") and \
        hasattr(fake_tensor, "FakeTensorMode")


def is_symbolic(value) -> bool:
    return bool(_SYM_TYPES) and isinstance(value, _SYM_TYPES)


def is_dynamic(size) -> bool:
    """A symbolic size the trace did not make a number (a guard
    `s0 == 6` replaces the symbol by 6 in every expression)."""
    return is_symbolic(size) and not size.node.expr.is_number


def hint(size) -> int:
    """A size's example value, read without recording a guard."""
    if isinstance(size, int):
        return size
    node = getattr(size, "node", None)
    value = getattr(node, "hint", None)
    if value is None and node is not None:
        value = node.shape_env.size_hint(node.expr)
    return int(value)


def is_contiguous(val: torch.Tensor) -> bool:
    """`val.is_contiguous()` on the example sizes (no guard on symbolic
    ones)."""
    shape = list(val.shape)
    if not any(is_symbolic(s) for s in shape) and \
            not any(is_symbolic(s) for s in val.stride()):
        return val.is_contiguous()
    step = 1
    for size, stride in zip(reversed(shape), reversed(list(val.stride()))):
        n = hint(size)
        if n != 1 and hint(stride) != step:
            return False
        step *= max(n, 1)
    return True


class Session:
    """One dynamic trace: a ShapeEnv and a FakeTensorMode over it."""

    def __init__(self) -> None:
        from torch.fx.experimental.symbolic_shapes import ShapeEnv
        from torch._subclasses.fake_tensor import FakeTensorMode

        # duck_shape=False: two dims that happen to be equal in the example
        # (batch 8, sequence 8) are two symbols, not one (which would guard
        # their equality and retrace when they differ).
        self.shape_env = ShapeEnv(duck_shape=False)
        # (Real tensors the function holds outside its arguments and
        # modules are constants of the trace, as in a real-tensor trace.)
        self.mode = FakeTensorMode(shape_env=self.shape_env, allow_non_fake_inputs=True)
        self.fakes: List[torch.Tensor] = []
        self.dynamic: Dict[int, Set[int]] = {}
        # Where the trace replaced a symbol by a number (the frames that
        # made a dynamic size static), by symbol name.
        self.specialized_at: Dict[str, str] = {}
        # The dynamic dims the trace made static, in words (still_dynamic).
        self.lost: List[str] = []
        replace = getattr(self.shape_env, "_set_replacement", None)
        if replace is not None:
            def spy(a, tgt, *args, **kwargs):
                if getattr(tgt, "is_number", False):
                    self.specialized_at.setdefault(str(a), _frames())
                return replace(a, tgt, *args, **kwargs)

            self.shape_env._set_replacement = spy

    def fake(self, tensors: Sequence[torch.Tensor],
             dynamic: Dict[int, Set[int]]) -> List[torch.Tensor]:
        """Fake copies of `tensors`: dims `dynamic[i]` of tensor i are
        symbols, every other dim is its size."""
        from torch.fx.experimental.symbolic_shapes import DimDynamic, StatelessSymbolicContext

        out = []
        for i, t in enumerate(tensors):
            dims = dynamic.get(i, set())
            ctx = StatelessSymbolicContext(
                dynamic_sizes=[DimDynamic.DYNAMIC if d in dims else DimDynamic.STATIC
                               for d in range(t.dim())])
            out.append(self.mode.from_tensor(t, source=_source(i), symbolic_context=ctx))
        self.fakes = out
        self.dynamic = {i: set(d) for i, d in dynamic.items() if d}
        return out

    def still_dynamic(self) -> Dict[int, Set[int]]:
        """The dynamic dims the trace left symbolic. A decision that
        needed a size's number (`int(B)`, `if B == 6`) made it static:
        the specialization is then keyed by its size (the ShapeEnv's
        guards, produced with ignore_static, would not check it)."""
        out: Dict[int, Set[int]] = {}
        self.lost = []
        for i, dims in self.dynamic.items():
            kept = {d for d in dims if is_dynamic(self.fakes[i].shape[d])}
            if kept:
                out[i] = kept
            for d in sorted(dims - kept):
                node = self.fakes[i].shape[d].node if is_symbolic(self.fakes[i].shape[d]) \
                    else None
                where = self.specialized_at.get(str(getattr(node, "_expr", "")), "")
                self.lost.append(f"input {i} dim {d}" + (f" (at {where})" if where else ""))
        return out

    def trace_inputs(self, forward, copies, dynamic, out_info, n_out):
        """(fake inputs, fake tangents) of a dynamic training trace: the
        inputs' `dynamic` dims are symbols; `forward` (tgc._autograd's)
        run on them gives the tangents their symbolic shapes."""
        from torch._dispatch.python import enable_python_dispatcher

        from . import _tracing

        fakes = self.fake(copies, dynamic)
        # The Python dispatcher, as make_fx's symbolic mode has it: without
        # it, C++ composites (matmul's folding of batch dims, cross
        # entropy) read sizes as numbers, and the batch size became static.
        with self.mode, enable_python_dispatcher(), torch.enable_grad(), \
                _tracing.tracing_through():
            outs = forward(*fakes)
            leaves = out_info["key"][1]
            if any(is_symbolic(v) for _, v in leaves):
                raise SymbolicUnsupported("the function returns a size (a SymInt)")
            tangents = [torch.ones_like(o) for o, g in zip(outs[:n_out], out_info["grad"]) if g]
        return fakes, tangents

    def guards(self) -> "SizeGuards":
        """What the trace so far decided on the fake inputs' sizes."""
        code = self.shape_env.produce_guards_expression(self.fakes)
        return SizeGuards(code)


def _frames() -> str:
    """Where a size was made static: the innermost frames of the model's
    code (not PyTorch's, not TGC's), and the PyTorch function it called."""
    import os
    import traceback

    # (By package directory: a model's own files may lie under a folder
    # named torch, as site-packages in /opt/torch/.venv do.)
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    tgc_dir = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frames = traceback.extract_stack()[:-2]
    mine = [f for f in frames
            if not os.path.abspath(f.filename).startswith((torch_dir, tgc_dir))]
    torch_frames = [f for f in frames if os.path.abspath(f.filename).startswith(torch_dir)]
    shown = [f"{f.filename}:{f.lineno} ({f.name})" for f in mine[-3:]]
    if torch_frames:
        f = torch_frames[-1]
        shown.append(f"torch/{os.path.abspath(f.filename)[len(torch_dir):]}:{f.lineno} "
                     f"({f.name})")
    return " < ".join(reversed(shown))


def _source(i: int):
    """The source naming input i in the ShapeEnv's guards (``L['t0']``,
    what produce_guards_expression calls its placeholders)."""
    try:
        from torch._dynamo.source import LocalSource
    except ImportError as e:  # pragma: no cover - 2.x has it
        raise SymbolicUnsupported(f"no torch._dynamo.source: {e}")
    return LocalSource(f"t{i}")


class SizeGuards:
    """The ShapeEnv's guards as one compiled Python expression over the
    call's flat tensors (``L['t0'].size()[0] >= 2 and ...``)."""

    def __init__(self, code: Optional[str]) -> None:
        self.text = code or ""
        self._code = compile(code, "<tgc training size guards>", "eval") if code else None
        self._globals = None
        if code:
            from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP

            self._globals = dict(SYMPY_INTERP)

    def hold(self, tensors: Sequence[torch.Tensor]) -> bool:
        if self._code is None:
            return True
        local = {f"t{i}": t for i, t in enumerate(tensors)}
        return bool(eval(self._code, self._globals, {"L": local}))  # noqa: S307


class SizeEmitter:
    """Emits, into `graph`, nodes computing a symbolic size from the sizes
    of `placeholders` (nodes whose meta["val"] is a fake tensor):
    ``aten.sym_size.int`` of a dim with that size, or Python arithmetic on
    such reads. Nodes are appended at the graph's insertion point."""

    def __init__(self, graph: torch.fx.Graph, placeholders: Sequence[torch.fx.Node]) -> None:
        self.graph = graph
        self.dims: Dict[object, Tuple[torch.fx.Node, int]] = {}
        self.cache: Dict[object, object] = {}
        self.shape_env = None
        for p in placeholders:
            val = p.meta.get("val")
            if not isinstance(val, torch.Tensor):
                continue
            for d, s in enumerate(val.shape):
                if is_dynamic(s):
                    self.shape_env = self.shape_env or s.node.shape_env
                    self.dims.setdefault(self._normal(s.node.expr), (p, d))

    def _normal(self, expr):
        env = self.shape_env
        if env is None:
            return expr
        try:
            return env.simplify(env.replace(expr))
        except Exception:  # noqa: BLE001 - an expression simplify rejects
            return expr

    def emit(self, value):
        """An int for a number, a node for a symbolic size."""
        if not is_symbolic(value):
            return value
        if self.shape_env is None:
            self.shape_env = value.node.shape_env
        return self._emit(self._normal(value.node.expr))

    def _call(self, fn, a, b):
        if not isinstance(a, torch.fx.Node) and not isinstance(b, torch.fx.Node):
            return fn(a, b)
        return self.graph.call_function(fn, (a, b))

    def _emit(self, expr):
        import sympy

        if expr.is_number:
            return int(expr) if expr.is_integer else float(expr)
        if expr in self.cache:
            return self.cache[expr]
        found = self.dims.get(expr)
        if found is not None:
            p, d = found
            out = self.graph.call_function(torch.ops.aten.sym_size.int, (p, d))
        elif isinstance(expr, (sympy.Add, sympy.Mul)):
            fn = operator.add if isinstance(expr, sympy.Add) else operator.mul
            parts = [self._emit(a) for a in expr.args]
            out = parts[0]
            for part in parts[1:]:
                out = self._call(fn, out, part)
        elif (isinstance(expr, sympy.Pow) or type(expr).__name__ == "PowByNatural") and \
                expr.args[1].is_Integer and int(expr.args[1]) >= 1:
            base = self._emit(expr.args[0])
            out = base
            for _ in range(int(expr.args[1]) - 1):
                out = self._call(operator.mul, out, base)
        elif type(expr).__name__ in _TO_FLOAT and len(expr.args) == 1:
            out = self._emit(expr.args[0])
            out = self.graph.call_function(float, (out,)) if isinstance(out, torch.fx.Node) \
                else float(out)
        else:
            fn = _BINARY.get(type(expr).__name__)
            if fn is None or len(expr.args) != 2:
                raise SymbolicUnsupported(
                    f"the backward needs the size {expr}, which none of its inputs' sizes "
                    f"gives")
            out = self._call(fn, self._emit(expr.args[0]), self._emit(expr.args[1]))
        self.cache[expr] = out
        return out


# torch.utils._sympy.functions' integer operations, by class name.
_BINARY: Dict[str, Callable] = {
    "FloorDiv": operator.floordiv, "CleanDiv": operator.floordiv,
    "Mod": operator.mod, "PythonMod": operator.mod,
    # int / int and float / float (batch norm's 1 / (N * H * W)): Python's
    # true division, a float in TGC's graph (tgc.fx).
    "IntTrueDiv": operator.truediv, "FloatTrueDiv": operator.truediv,
    "TrueDiv": operator.truediv,
}
_TO_FLOAT = {"ToFloat"}


def mask_key(key, dynamic: Dict[int, Set[int]]):
    """A call's key with the sizes of the dynamic dims left out."""
    metas = list(key[1])
    for i, dims in dynamic.items():
        if i < len(metas):
            shape = metas[i][0]
            metas[i] = (tuple(None if d in dims else n for d, n in enumerate(shape)),) + \
                metas[i][1:]
    return (key[0], tuple(metas)) + tuple(key[2:])


def dims_text(dynamic: Dict[int, Set[int]]) -> str:
    """{0: {0}, 1: {0, 1}} as "input 0 dim 0, input 1 dims 0 and 1"."""
    parts = []
    for i, dims in sorted(dynamic.items()):
        ds = sorted(dims)
        parts.append(f"input {i} dim {ds[0]}" if len(ds) == 1 else
                     f"input {i} dims " + ", ".join(map(str, ds[:-1])) + f" and {ds[-1]}")
    return ", ".join(parts)


def symbolic_placeholders(gm: torch.fx.GraphModule) -> Dict[int, Set[int]]:
    """Per placeholder (a graph's flat tensor input), its symbolic dims."""
    out: Dict[int, Set[int]] = {}
    for i, n in enumerate(p for p in gm.graph.nodes if p.op == "placeholder"):
        val = n.meta.get("val")
        if isinstance(val, torch.Tensor):
            dims = {d for d, s in enumerate(val.shape) if is_dynamic(s)}
            if dims:
                out[i] = dims
    return out


__all__ = ["available", "Session", "SizeEmitter", "SizeGuards", "SymbolicUnsupported",
           "is_symbolic", "is_dynamic", "hint", "is_contiguous", "mask_key", "dims_text",
           "symbolic_placeholders"]
