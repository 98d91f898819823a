"""Records PyTorch calls into a ``tgc`` graph.

:class:`Tracer` runs the user's function eagerly on the example inputs under
a ``TorchFunctionMode`` (PyTorch 1.13 and 2.x). Every torch call on a traced
tensor is executed for real (so control flow, dtypes and shapes are exactly
PyTorch's) and recorded as ``tgc`` ops through the handlers of
:mod:`tgc._ops`. The FX importer drives the same recorder node by node.

A Python read of a dynamic size (``x.shape[0]``, ``x.size(1)``,
``B, S, D = x.shape``) returns a :class:`tgc._sym.SymInt`: it stays
symbolic through arithmetic and into torch calls, and only a decision
Python makes on it (a comparison, ``int()``, ``range()``) becomes a guard,
recorded with the file and line of the decision (see ``_sym``).
``len(x)`` and ``x.numel()`` used as Python numbers specialize as before.
Data-dependent control flow (``bool(t)``, ``t.item()``) cannot be guarded
and is reported as unsupported.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import torch
from torch.overrides import TorchFunctionMode

from . import _slots, _trees
from ._graph import Dyn, Graph, Unsupported, Value, format_type, mlir_dtype, size_value
from ._names import mlir_string
from ._scalars import DataScalar
from ._trace_patches import (_enter_compiling, _leave_compiling, _patch_script_calls,
                             _patch_size_functions, _routed_index)
from ._tracing import _active
from ._sym import Expr, SizeGuard, SymInt, guard_for, implied, relation

# With a trailing separator: "…/torch" must not match "…/torchvision".
_TORCH_DIR = os.path.join(os.path.dirname(torch.__file__), "")
_TGC_DIR = os.path.join(os.path.dirname(__file__), "")


_FILE_LINE = None


def _node_frame(node) -> Optional[Tuple[str, int]]:
    """The model's file and line of an FX node: the last frame of the
    stack trace Dynamo and torch.export record in its meta."""
    global _FILE_LINE
    trace = getattr(node, "meta", {}).get("stack_trace") or getattr(node, "stack_trace", None)
    if not trace:
        return None
    if _FILE_LINE is None:
        import re

        _FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')
    found = [(f, int(l)) for f, l in _FILE_LINE.findall(trace)]
    if any("/torch/fx/" in f for f, _ in found):
        # torch.fx's own tracer lists the innermost frame first, and itself.
        found = [x for x in found if not x[0].startswith(_TORCH_DIR)][:1]
    return found[-1] if found else None  # Dynamo, torch.export: innermost last


def storage_ptr(t: torch.Tensor) -> int:
    """The address of the memory `t` is a view of (0 for none): its data
    pointer less its offset, with no storage object made (PyTorch 1.13's
    `storage()` builds one per call)."""
    ptr = t.data_ptr()
    return ptr - t.storage_offset() * t.element_size() if ptr else 0


def user_frame() -> Tuple[str, int]:
    """File and line of the innermost frame outside torch and tgc (for an
    FX graph being interpreted, the model's line its current node came
    from, where the graph recorded it)."""
    if _active and _active[-1].fx_node is not None:
        where = _node_frame(_active[-1].fx_node)
        if where is not None:
            return where
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if not is_internal_file(name):
            return name, f.f_lineno
        f = f.f_back
    return "<unknown>", 0


def is_internal_file(name: str) -> bool:
    """Whether a code file is torch's or tgc's (not the model's)."""
    internal = _INTERNAL_FILES.get(name)
    if internal is None:
        internal = _INTERNAL_FILES[name] = (
            name.startswith(_TORCH_DIR)
            or name.startswith(_TGC_DIR)
            or name.startswith("<frozen")
            or "/torch/fx/" in name
        )
    return internal


# File name -> whether it is torch's or tgc's (user_frame skips its frames).
_INTERNAL_FILES: Dict[str, bool] = {}


def mlir_loc(file: str, line: int) -> str:
    return '"{}":{}:0'.format(file.replace("\\", "/").replace('"', "'"), line)


@dataclass
class Specialization:
    """A dynamic input size that Python code read: it becomes static."""

    arg: int
    dim: int
    value: int
    reason: str


class Poisoned(Exception):
    """An operand is the result of an unsupported call (already reported)."""


class NeedRetrace(Exception):
    """Raised when a read specialized a size that the graph so far treated as
    dynamic: the trace restarts with that size static."""


class NeedExact(BaseException):
    """Raised when an approximate trace (tgc._approximate: products and
    convolutions not computed) reaches something that needs their values:
    the trace restarts computing everything. A BaseException, so that the
    model's own `except Exception` cannot swallow it."""


class TracedSize(tuple):
    """``x.shape`` during tracing: a ``torch.Size``-like tuple whose dynamic
    sizes are :class:`SymInt` (symbolic; a comparison becomes a guard)."""

    def __new__(cls, tracer: "Tracer", value: Value, sizes: Sequence[int]):
        obj = super().__new__(
            cls, tuple(tracer.sym_size(value, d) for d in range(len(sizes))))
        obj._tracer = tracer
        obj._value = value
        return obj

    def __getitem__(self, index):
        r = super().__getitem__(index)
        return tuple(r) if isinstance(index, slice) else r

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __radd__(self, other):
        return tuple(other) + tuple(self)

    __hash__ = tuple.__hash__

    def numel(self):
        n = 1
        for s in tuple.__iter__(self):
            n = s * n
        return n

    def concrete(self) -> Tuple[int, ...]:
        return tuple(int(getattr(s, "hint", s)) for s in tuple.__iter__(self))

    def __repr__(self) -> str:
        return "torch.Size([" + ", ".join(str(s) for s in self.concrete()) + "])"


@dataclass
class TraceResult:
    graph: Graph
    text: str
    # How each user output is produced: ("result", i), ("moved", (i,
    # device)) (result i, moved to the device eager PyTorch gives it), ("arg", i) (an input
    # object returned as is), ("const", obj), ("size", Expr) or ("sizes",
    # [Expr or int]) (sizes computed from the input sizes on every call), or
    # ("eager", name) (an eager value of a graph break), or ("scalar",
    # (i, kind)): result i, a 0-d tensor, as a Python number (tgc._scalars).
    outputs: List[Tuple[str, Any]]
    output_tree: Any
    captured: List[torch.Tensor]
    specializations: List[Specialization]
    num_user_args: int
    ops: int
    mutated_args: List[int] = field(default_factory=list)
    # Products and convolutions the trace did not compute (tgc._approximate).
    approximated: int = 0
    # One-element inputs read as numbers: (input index, value).
    value_specs: List[Tuple[int, Any]] = field(default_factory=list)
    # Parameter or buffer name of each captured tensor (None: not one of
    # the compiled module's), and the Python values the trace read.
    captured_names: List[Optional[str]] = field(default_factory=list)
    # For a captured tensor whose layout is a permutation of a dense one
    # (a transposed weight, channels_last), the permutation that makes it
    # dense: the graph's argument is `t.permute(p)` (the same memory).
    captured_perms: List[Optional[Tuple[int, ...]]] = field(default_factory=list)
    captured_origs: List[Optional[torch.Tensor]] = field(default_factory=list)
    # Where a captured tensor that is no parameter or buffer was read from
    # (a global's dict, a module's __dict__): found again there when it is
    # rebound, as a parameter by its name (tgc._object_guards.by_source).
    captured_sources: List[Optional[Tuple[dict, str]]] = field(default_factory=list)
    # torch.is_grad_enabled() as the function read it (None: not read).
    grad_mode: Optional[bool] = None
    # Whether Python read a tensor's layout (it saw dense tensors).
    layout_read: bool = False
    # The model's name of each graph argument, None where it has none
    # (tgc._names): inputs, then captured tensors.
    arg_names: List[Optional[str]] = field(default_factory=list)
    value_guards: List[Any] = field(default_factory=list)
    # Conditions on input sizes that Python decisions depended on
    # (checked on every call before the compiled guards).
    size_guards: List[SizeGuard] = field(default_factory=list)
    # With graph breaks: the regions and islands (tgc._breaks.Program),
    # and the graph names of the captured tensors.
    program: Any = None
    captured_value_names: List[str] = field(default_factory=list)
    # Inputs that stay eager values: (index, dtype, rank, layout).
    eager_inputs: List[Tuple[int, torch.dtype, int, Any]] = field(default_factory=list)
    # Results (of the whole-graph function) that are uint8 tensors, which
    # the function returns as their i8 storage.
    unsigned_results: List[int] = field(default_factory=list)
    # The captured 0-d int64 seed of random operators (tgc/_ops/random.py).
    seed_index: Optional[int] = None


_STALE = ("a view of a tensor that was updated in place after the view was made: TGC "
          "recomputes views made by view operators it compiles, not this one")


def recording_paused():
    """A context in which torch calls run without the tracer's mode (as
    inside a handler): for recording helpers called from outside one."""
    pop = getattr(torch.overrides, "_pop_mode_temporarily", None)
    return pop() if pop is not None else torch._C.DisableTorchFunction()


def _compiles(t: torch.Tensor) -> bool:
    """Whether TGC compiles tensors like `t` (its dtype and layout)."""
    if t.layout != torch.strided or t.is_quantized:
        return False
    try:
        mlir_dtype(t.dtype)
    except Unsupported:
        return False
    return True


class Tracer(TorchFunctionMode):
    """Traces one call. `dynamic[i]` lists the dims of input i that are
    dynamic (the rest are static)."""

    def __init__(
        self,
        inputs: Sequence[Any],
        dynamic: Sequence[Set[int]],
        name: str = "traced",
        specializations: Sequence[Specialization] = (),
        tensor_names: Optional[Dict[int, str]] = None,
        breaks=None,
        data_inputs: Set[int] = frozenset(),
        input_names: Sequence[str] = (),
        labels: Optional[Dict[int, str]] = None,
    ):
        super().__init__()
        # The model's names of the inputs and of captured tensors (by id):
        # the graph's argument locations (tgc._names).
        self.input_names = list(input_names)
        self.labels = labels or {}
        # Module paths of the submodule calls the trace is inside (their
        # forward's ops are located with the innermost one; see loc()).
        self.module_stack: List[str] = []
        # One-element inputs whose value changed between calls: in an FX
        # graph, read as numbers in the graph (tgc._scalars), not specialized.
        self.data_inputs = set(data_inputs)
        # Graph breaks (fullgraph=False): the islands recorded so far, the
        # graph arguments that are their results (arg -> (island, slot)),
        # their eager values (a dtype TGC does not compile), and the sizes
        # of island results that are dynamic (tgc._breaks.BreakSizes).
        # None: every unsupported call is an error (fullgraph=True).
        self.breaks = breaks
        self.islands: List[Any] = []
        self.island_args: Dict[int, Tuple[int, int]] = {}
        self.eager: Dict[int, Tuple[torch.Tensor, str]] = {}
        # Slices, narrows and selects of traced tensors: id(view) -> (view,
        # base, recompute(base value), writer(base value, update) or None)
        # (in-place updates of views and of their bases: core._assign).
        self.views: Dict[int, Tuple[Any, Any, Any, Any]] = {}
        # Aliases whose value went stale (poisoned) by an in-place update
        # of the memory they share.
        self.stale: Dict[int, torch.Tensor] = {}
        self.captured_values: List[Value] = []
        # The FX node being interpreted (fx._Recorder), for locations.
        self.fx_node = None
        self.graph = Graph(name=name)
        self.tensor_names = tensor_names or {}
        self.captured_names: List[Optional[str]] = []
        self.values: Dict[int, Tuple[torch.Tensor, Value]] = {}
        # The traced tensors by the address of their memory (storage_ptr),
        # so that finding the ones sharing a tensor's memory does not scan
        # every value (an index: `values` decides what is still traced).
        self.by_storage: Dict[int, Dict[int, torch.Tensor]] = {}
        self.keep: List[Any] = []
        self.inputs = list(inputs)
        self.input_values: List[Optional[Value]] = []
        self.specializations: List[Specialization] = list(specializations)
        self.captured: List[torch.Tensor] = []
        self.captured_perms: List[Optional[Tuple[int, ...]]] = []
        # The tensor the model holds behind each captured argument passed
        # permuted (its dense view), None where it is passed as it is.
        self.captured_origs: List[Optional[torch.Tensor]] = []
        self.frame_notes = None  # tgc._object_guards.FrameNotes, set by the trace loop
        self.layout_read = False  # is_contiguous(), stride(), ... (tgc._ops.core)
        self.outside_storages: Set[int] = set()  # the captured tensors' memory
        self.mutated: Dict[int, int] = {}  # id(tensor) -> argument index
        self.errors: List[str] = []
        self.poisoned: Dict[int, torch.Tensor] = {}
        self.value_specs: List[Tuple[int, Any]] = []
        self.size_guards: List[SizeGuard] = []
        self.retrace = False  # a deferred specialization (see specialize)
        # Approximate trace (tgc._approximate): large products and
        # convolutions on the CPU are not computed; the memory (storage_ptr)
        # of every tensor whose values depend on one is "tainted".
        self.approximate = False
        self.approximated = 0
        self.tainted: Set[int] = set()
        # The memory of tensors set as module attributes during the trace
        # (it outlives the trace: written with tainted values, it restarts).
        self.escaped: Set[int] = set()
        self.need_exact = False  # (NeedExact raised, maybe caught by the model)
        # Input sizes Python read as SymInts: where first (see tgc._trace_loop).
        self.size_reads: Dict[Tuple[int, int], str] = {}
        # The graph's size for each size expression (input sizes first, so
        # that view(B, S, D) keeps x's own sizes), and the index SSA value
        # computing it.
        self.dyn_by_expr: Dict[Expr, Dyn] = {}
        self.index_values: Dict[Expr, str] = {}
        self.opaque_values: Dict[str, Value] = {}
        self.ops = 0
        # Inputs of a dtype or layout TGC does not compile (complex,
        # unsigned, quantized), with graph breaks: eager values that only
        # islands read; (input index, dtype, rank, layout), checked per call.
        self.eager_inputs: List[Tuple[int, torch.dtype, int, Any]] = []
        for i, x in enumerate(self.inputs):
            if isinstance(x, torch.Tensor) and breaks is not None and not _compiles(x):
                name = self.graph.add_hole()
                self.eager[id(x)] = (x, name)
                self.poison(x)
                self.keep.append(x)
                self.eager_inputs.append((i, x.dtype, x.dim(), x.layout))
                self.input_values.append(None)
            elif isinstance(x, torch.Tensor):
                shape = []
                for d, s in enumerate(x.shape):
                    s = int(s)
                    if d in dynamic[i] and s > 1:
                        e = Expr.size(i, d)
                        shape.append(Dyn({(i, d)}, s, e))
                        self.dyn_by_expr[e] = shape[-1]
                    else:
                        shape.append(s)
                v = self.graph.add_arg(
                    x.dtype, shape, self.input_names[i] if i < len(self.input_names) else None)
                self.bind(x, self.graph.widen(v))
                self.input_values.append(v)
            else:
                self.input_values.append(None)

    # -- values ------------------------------------------------------------

    def bind(self, t: torch.Tensor, v: Value) -> None:
        self.values[id(t)] = (t, v)
        self.keep.append(t)
        ptr = storage_ptr(t)
        if ptr:
            self.by_storage.setdefault(ptr, {})[id(t)] = t

    def reindex(self, t: torch.Tensor) -> None:
        """`t` may have new memory (an in-place op or a graph break that
        resized or re-pointed it): file it under its current address."""
        entry = self.values.get(id(t))
        ptr = storage_ptr(t)
        if ptr and entry is not None and entry[0] is t:
            self.by_storage.setdefault(ptr, {})[id(t)] = t

    def sharing_memory(self, ptr: int) -> List[torch.Tensor]:
        """The traced tensors whose memory starts at `ptr` (storage_ptr)."""
        if not ptr:
            return []
        out = []
        for key, t in list(self.by_storage.get(ptr, {}).items()):
            entry = self.values.get(key)
            if entry is not None and entry[0] is t and storage_ptr(t) == ptr:
                out.append(t)
        return out

    def poison(self, t: torch.Tensor) -> None:
        self.poisoned[id(t)] = t

    def produced(self, t: torch.Tensor) -> bool:
        """Whether the trace computed `t` (bound, and neither an input nor
        a tensor from outside)."""
        entry = self.values.get(id(t))
        if entry is None or entry[0] is not t:
            return False
        return not any(x is t for x in list(self.inputs) + self.captured + self.captured_origs)

    def value_of(self, t: torch.Tensor) -> Value:
        entry = self.values.get(id(t))
        if entry is not None and entry[0] is t:
            return entry[1]
        if self.poisoned.get(id(t)) is t:
            raise Poisoned()
        # A tensor the trace did not produce: a view we could not see (an
        # integer index on PyTorch 1.13 bypasses torch functions) must not
        # be mistaken for a constant.
        if self.sharing_memory(storage_ptr(t)):
            raise Unsupported(
                "a view of a traced tensor was created without a torch "
                "call TGC can see (on PyTorch 1.13, x[i] with an integer "
                "i); write x.select(dim, i) or x[i:i+1]",
                "%s:%d" % user_frame(),
            )
        # A tensor from outside the function (a global, a closure, a
        # parameter of a module called inside): an extra input, passed by
        # reference on every call. Not a tensor subclass (tgc._trees.flatten
        # says why).
        if not _trees.plain_tensor_type(type(t)):
            raise Unsupported(
                f"a tensor subclass ({type(t).__name__}) from outside the function: "
                "compiled code computes on plain tensors, without its "
                "__torch_function__, and returns plain tensors", "%s:%d" % user_frame())
        # Compiled code reads its arguments as dense row-major tensors: a
        # transposed or channels_last tensor is passed as the dense view of
        # its memory and permuted back in the graph.
        perm = None
        arg = t
        if not t.is_contiguous():
            perm = dense_permutation(t)
            if perm is None:
                raise Unsupported(
                    f"a tensor from outside the function whose layout is not a permutation "
                    f"of a row-major one (sizes {list(t.shape)}, strides {list(t.stride())})",
                    "%s:%d" % user_frame())
            arg = t.permute(perm)
        v = self.graph.add_arg(arg.dtype, [int(s) for s in arg.shape], self.labels.get(id(t)))
        if storage_ptr(t):
            self.outside_storages.add(storage_ptr(t))
        self.captured.append(arg)
        self.captured_perms.append(perm)
        self.captured_origs.append(t if perm is not None else None)
        self.captured_values.append(v)
        self.captured_names.append(self.tensor_names.get(id(t)))
        w = self.graph.widen(v)
        if perm is not None:
            back = [perm.index(d) for d in range(len(perm))]
            shape = [w.shape[p] for p in back]
            w = self.graph.emit(
                f"tgc.permute {w.name} {back} : {w.type} -> {format_type(w.dtype, shape)}",
                [(w.dtype, shape)], self.loc())[0]
        self.bind(t, w)
        return w

    @property
    def device(self) -> torch.device:
        """The device the graph runs on: the inputs' (a tensor the function
        puts on another device is computed there too, and moved where eager
        PyTorch has it when it leaves the graph)."""
        return next((x.device for x in list(self.inputs) + self.captured
                     if isinstance(x, torch.Tensor)), torch.device("cpu"))

    def name_of(self, t: torch.Tensor) -> str:
        """The graph value's or the eager value's name of `t`."""
        e = self.eager.get(id(t))
        if e is not None and e[0] is t:
            return e[1]
        return self.value_of(t).name

    def specialize(self, size, what: str, defer: bool = False) -> None:
        """Makes the input sizes of `size` static: the trace restarts, now
        (NeedRetrace) or, with `defer`, when it finishes (from a conversion
        that PyTorch's C++ argument parser may call and whose exceptions it
        swallows; the trace goes on with the value it returned)."""
        if not isinstance(size, Dyn):
            return
        where = self.where()
        known = {(s.arg, s.dim) for s in self.specializations}
        new = False
        for arg, dim in sorted(size.sources):
            # A size of an island's result: static from now on (checked
            # when the island runs).
            key = self.island_args.get(arg)
            if key is not None and self.breaks.pin(key, dim):
                new = True
        for arg, dim in sorted(size.sources - known):
            if arg in self.island_args:
                continue
            # The traced size, not inputs[arg].shape: that read would come
            # back here through the mode.
            value = size_value(self.input_values[arg].shape[dim])
            self.specializations.append(
                Specialization(arg, dim, value, f"{what} at {where}")
            )
            new = True
        if new and defer:
            self.retrace = True
        elif new:
            raise NeedRetrace()

    # -- symbolic sizes ------------------------------------------------------

    def hint_size(self, arg: int, dim: int) -> int:
        return size_value(self.input_values[arg].shape[dim])

    def hint_of(self, expr: Expr) -> int:
        """The traced call's value of `expr` (opaque sizes included)."""
        return expr.evaluate(self.hint_size,
                             lambda name, d: self.opaque_values[name].concrete()[d])

    def sym_size(self, v: Value, dim: int):
        """Size `dim` of `v` as Python sees it: an int when static, else a
        SymInt (an opaque one when the graph does not know the size as a
        function of the input sizes)."""
        s = v.shape[dim]
        if not isinstance(s, Dyn):
            return s
        for src in s.sources:
            if src not in self.size_reads:
                self.size_reads[src] = "%s:%d" % user_frame()
        expr = s.expr
        if expr is None:
            expr = Expr.opaque_size(v.name, dim, s.sources)
            self.opaque_values[v.name] = v
            s.expr = expr
            self.dyn_by_expr.setdefault(expr, s)
        return SymInt(self, expr, s.value)

    def dyn_for(self, x):
        """A size argument of a torch call as a graph size: an int, or the
        Dyn of a SymInt's expression (one Dyn per expression)."""
        if not isinstance(x, SymInt):
            return int(x)
        c = x.expr.constant()
        if c is not None:
            return c
        d = self.dyn_by_expr.get(x.expr)
        if d is None:
            d = self.dyn_by_expr[x.expr] = Dyn(x.expr.sources(), x.hint, x.expr)
        return d

    def _specialize_expr(self, expr: Expr, what: str) -> None:
        """A decision on a size the guards cannot evaluate: its input sizes
        become static (the trace restarts when it finishes)."""
        self.specialize(Dyn(expr.sources(), 0), what, defer=True)

    def guard_compare(self, lhs: Expr, rhs, op, what: str, lhs_hint=None) -> bool:
        """Python evaluated ``lhs op rhs`` on sizes: the outcome in the
        traced call, with a guard that it stays the same."""
        diff, kind, negate = relation(lhs, rhs, op)
        if diff.opaque():
            self._specialize_expr(diff, what)
            return op(lhs_hint if lhs_hint is not None else self.hint_of(lhs),
                      rhs.hint if isinstance(rhs, SymInt) else rhs)
        value = diff.evaluate(self.hint_size)
        holds = (value == 0) if kind == "==" else (value >= 0)
        expr, gop = guard_for(diff, kind, holds)
        if implied(expr, gop) is None:
            self._add_guard(expr, gop, what, self._relation_text(lhs, rhs, op, holds != negate))
        return holds != negate

    def guard_value(self, x: SymInt, what: str) -> None:
        """Python needs the number `x` (int(), range(), an index): an input
        size read alone is specialized (static in the graph); an expression
        is guarded equal to its value."""
        if x.expr.opaque():
            self._specialize_expr(x.expr, what)
            return
        one = x.expr.single_size()
        if one is not None:
            self.specialize(self.input_values[one[0]].shape[one[1]], what, defer=True)
            return
        self._add_guard(x.expr - x.hint, "==", what, f"{x.expr} == {x.hint}")

    def _relation_text(self, lhs: Expr, rhs, op, outcome: bool) -> str:
        names = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
        negated = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
        sym = names[op.__name__]
        if not outcome:
            sym = negated[sym]
        r = rhs.expr if isinstance(rhs, SymInt) else rhs
        return f"{lhs} {sym} {r}"

    def where(self) -> str:
        """file:line of the decision being recorded, and the FX node when
        an FX graph is interpreted (`view_3 = view(x_1, ...)`)."""
        file, line = user_frame()
        text = f"{file}:{line}"
        n = self.fx_node
        if n is not None:
            target = getattr(n.target, "__name__", None) or str(n.target)
            text += f" (FX node {n.name} = {n.op} {target})"
        return text

    def _add_guard(self, expr: Expr, op: str, what: str, text: str) -> None:
        g = SizeGuard(expr, op, f"{what} at {self.where()}", text)
        if g not in self.size_guards:
            self.size_guards.append(g)

    def index_of(self, size) -> str:
        """An index SSA value holding `size` (an int, a Dyn with an
        expression, or an Expr), emitted once per expression."""
        if isinstance(size, Dyn):
            if size.expr is None:
                raise Unsupported("a dynamic size the graph cannot compute")
            size = size.expr
        expr = Expr.of(size)
        name = self.index_values.get(expr)
        if name is not None:
            return name
        c = expr.constant()
        lines = self.graph.lines
        if c is not None:
            name = self.graph.fresh()
            lines.append(f"{name} = arith.constant {c} : index")
        elif expr.single_size() is not None or (
                len(expr.terms) == 1 and expr.terms[0][1] == 1
                and len(expr.terms[0][0]) == 1):
            name = self._atom_index(expr.terms[0][0][0])
        else:
            name = None
            for mono, coeff in expr.terms:
                term = None
                for a in mono:
                    x = self._atom_index(a)
                    term = x if term is None else self._arith("muli", term, x)
                if term is None:
                    term = self.index_of(abs(coeff))
                elif abs(coeff) != 1:
                    term = self._arith("muli", term, self.index_of(abs(coeff)))
                if name is None:
                    name = term if coeff > 0 else self._arith("subi", self.index_of(0), term)
                else:
                    name = self._arith("addi" if coeff > 0 else "subi", name, term)
        self.index_values[expr] = name
        return name

    def _arith(self, op: str, a: str, b: str) -> str:
        r = self.graph.fresh()
        self.graph.lines.append(f"{r} = arith.{op} {a}, {b} : index")
        return r

    def _atom_index(self, a) -> str:
        key = Expr({(a,): 1})
        if key in self.index_values:
            return self.index_values[key]
        if a[0] in ("s", "d"):
            v = self.input_values[a[1]] if a[0] == "s" else self.opaque_values[a[1]]
            c = self.index_of(a[2])
            name = self.graph.fresh()
            self.graph.lines.append(f"{name} = tensor.dim {v.name}, {c} : {v.type}")
        else:
            num, den = self.index_of(a[1]), self.index_of(a[2])
            q = self._arith("floordivsi", num, den)
            # Python's modulo has the divisor's sign: a - (a // b) * b.
            name = q if a[0] == "//" else self._arith("subi", num, self._arith("muli", q, den))
        self.index_values[key] = name
        return name

    def loc(self) -> str:
        """The location of the op being recorded: the innermost line of
        the model's code, inside the module that runs it
        (`"self.blocks.0.qkv (Linear)"("model.py":12:0)`)."""
        file, line = user_frame()
        where = mlir_loc(file, line)
        scope = self.scope()
        return f'"{mlir_string(scope)}"({where})' if scope else where

    def scope(self) -> Optional[str]:
        """The module path and type of the innermost module call the
        trace is inside (for an FX graph, Dynamo's `nn_module_stack`)."""
        node = self.fx_node
        if node is not None:
            stack = getattr(node, "meta", {}).get("nn_module_stack")
            if stack:
                path, kind = list(stack.values())[-1][:2]
                kind = getattr(kind, "__name__", None) or str(kind).rsplit(".", 1)[-1]
                return f"{path} ({kind.strip(chr(39))})"
            return None
        return self.module_stack[-1] if self.module_stack else None

    # -- interception --------------------------------------------------------

    def __enter__(self):
        # PyTorch 1.13 does not route x[i], x[a:b] and x[None] (an index
        # that is not a tuple) through torch functions; x[(i,)] is the same
        # indexing and is routed.
        if not hasattr(Tracer, "_orig_getitem"):
            # Removing the patches below leaves C slots of torch.Tensor
            # filled that were empty (tgc._slots): they are put back.
            Tracer._slots = _slots.snapshot(torch.Tensor)
            orig = torch.Tensor.__getitem__
            orig_set = torch.Tensor.__setitem__

            def getitem(self_, index):
                return orig(self_, _routed_index(index))

            def setitem(self_, index, value):
                # x[a:b] = v is not routed either: the update was invisible
                # to the trace, a stale value (a wrong answer).
                return orig_set(self_, _routed_index(index), value)

            Tracer._orig_getitem = orig if "__getitem__" in vars(torch.Tensor) else None
            Tracer._orig_setitem = orig_set if "__setitem__" in vars(torch.Tensor) else None
            torch.Tensor.__getitem__ = getitem
            torch.Tensor.__setitem__ = setitem
            Tracer._patched = _patch_size_functions() + _patch_script_calls()
            Tracer._compiling = _enter_compiling()
        Tracer._depth = getattr(Tracer, "_depth", 0) + 1
        return super().__enter__()

    def __exit__(self, *exc):
        Tracer._depth -= 1
        try:
            self._restore_patches()
        finally:
            super().__exit__(*exc)
        return None

    @staticmethod
    def _restore_patches() -> None:
        if Tracer._depth == 0 and hasattr(Tracer, "_orig_getitem"):
            for name in ("__getitem__", "__setitem__"):
                orig = getattr(Tracer, "_orig_" + name.strip("_"))
                if orig is None:  # inherited from torch._C._TensorBase
                    delattr(torch.Tensor, name)
                else:
                    setattr(torch.Tensor, name, orig)
            del Tracer._orig_getitem, Tracer._orig_setitem
            for owner, name, orig in Tracer._patched:
                if orig is None:
                    delattr(owner, name)
                else:
                    setattr(owner, name, orig)
            del Tracer._patched
            _leave_compiling(Tracer._compiling)
            del Tracer._compiling
            try:
                _slots.restore(Tracer._slots)
            finally:
                del Tracer._slots

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        from . import _ops

        if self.frame_notes is not None:  # the model's functions (tgc._object_guards)
            self.frame_notes.note(sys._getframe(1))

        return _ops.dispatch(self, func, args, kwargs)

    # -- results ---------------------------------------------------------------

    def finish(self, out: Any) -> TraceResult:
        if self.need_exact:
            raise NeedExact()
        if self.retrace:
            raise NeedRetrace()
        if self.errors:
            distinct = list(dict.fromkeys(self.errors))
            raise Unsupported(
                f"{len(distinct)} unsupported call(s) in {self.graph.name}:\n  "
                + "\n  ".join(distinct),
                fatal=True,
            )
        results: List[Value] = []
        outputs: List[Tuple[str, Any]] = []
        input_ids = {id(x): i for i, x in enumerate(self.inputs)}
        graph_device = self.device

        leaf_of = {}  # id of a returned tensor -> its leaf (returned twice: one object)

        def walk(o):
            if isinstance(o, torch.Tensor) and leaf_of.get(id(o), (None,))[0] is o:
                return leaf_of[id(o)][1]
            if isinstance(o, torch.Tensor):
                leaf_of[id(o)] = (o, ("leaf", len(outputs)))
                if id(o) in input_ids:
                    outputs.append(("arg", input_ids[id(o)]))
                elif id(o) in self.eager and self.eager[id(o)][0] is o:
                    outputs.append(("eager", self.eager[id(o)][1]))
                elif self.stale.get(id(o)) is o:
                    raise Unsupported(_STALE, fatal=True)
                elif self.poisoned.get(id(o)) is o:
                    raise Unsupported(
                        "a result of an operator that TGC computes only in part "
                        "(an auxiliary result, such as batch_norm's saved statistics)",
                        fatal=True)
                else:
                    results.append(self.value_of(o))
                    if o.device != graph_device:  # x.cpu(), a factory's device=
                        outputs.append(("moved", (len(results) - 1, o.device)))
                    else:
                        outputs.append(("result", len(results) - 1))
                return ("leaf", len(outputs) - 1)
            if isinstance(o, DataScalar):
                # A number computed in the graph: a Python number again
                # after the call.
                results.append(o.v)
                outputs.append(("scalar", (len(results) - 1, o.kind)))
                return ("leaf", len(outputs) - 1)
            if isinstance(o, TracedSize):
                # A returned size is computed from the call's input sizes
                # (a size of a value the graph computes is guarded).
                items = list(tuple.__iter__(o))
                if all(not isinstance(e, SymInt) or not e.expr.opaque() for e in items):
                    outputs.append(("sizes", [e.expr if isinstance(e, SymInt) else e
                                              for e in items]))
                    return ("leaf", len(outputs) - 1)
                for e in items:
                    if isinstance(e, SymInt):
                        self.guard_value(e, "returned size")
                outputs.append(("const", torch.Size(o.concrete())))
                return ("leaf", len(outputs) - 1)
            if isinstance(o, SymInt):
                if not o.expr.opaque():
                    outputs.append(("size", o.expr))
                    return ("leaf", len(outputs) - 1)
                self.guard_value(o, "returned size")
                outputs.append(("const", o.hint))
                return ("leaf", len(outputs) - 1)
            if isinstance(o, torch.Size):
                outputs.append(("const", o))
                return ("leaf", len(outputs) - 1)
            if dataclasses.is_dataclass(o) and not isinstance(o, type) and \
                    not isinstance(o, dict):
                fields = [f.name for f in dataclasses.fields(o) if f.init]
                return ("dataclass", type(o),
                        {n: walk(getattr(o, n)) for n in fields})
            if isinstance(o, (tuple, list)):
                return (type(o), [walk(e) for e in o])
            if isinstance(o, dict):
                # dict subclasses (OrderedDict, HF ModelOutput) keep their type.
                return (type(o), {k: walk(e) for k, e in o.items()})
            if o is None or isinstance(o, (int, float, bool, str, torch.dtype,
                                           torch.device, enum.Enum, type)):
                outputs.append(("const", o))
                return ("leaf", len(outputs) - 1)
            if hasattr(o, "__dict__") and not isinstance(o, torch.nn.Module) and \
                    not callable(o) and id(o) not in on_path:
                # An object of tensors and values (a Hugging Face cache):
                # rebuilt with its attributes, its class's __init__ not run.
                on_path.add(id(o))
                state = {k: walk(v) for k, v in vars(o).items()}
                on_path.discard(id(o))
                return ("object", type(o), state)
            raise Unsupported(f"an output of type {type(o).__name__}")

        on_path: Set[int] = set()

        tree = walk(out)
        if self.retrace:  # a returned size was specialized
            raise NeedRetrace()
        # In-place updates of inputs: write the final value into the input.
        for tid, arg in self.mutated.items():
            t, v = self.values[tid]
            target = self.input_values[arg]
            if v is not target:
                v = self.graph.narrow(v)  # (a uint8 input: its i8 storage)
                self.graph.emit(
                    f"tgc.write_out {v.name} into {target.name} : {v.type} into "
                    f"{target.type}",
                    [],
                )
        program = None
        if self.islands or self.eager_inputs:
            from ._breaks import partition

            program = partition(
                self.graph, self.islands, [v.name for v in results],
                [v.name for v in self.input_values if v is not None], self.graph.name)
            text = "\n".join(
                r.text if hasattr(r, "text") else
                f"// graph break {r.index}: {r.info}\n" for r in program.steps)
        else:
            text = self.graph.to_mlir(results)
        return TraceResult(
            graph=self.graph,
            text=text,
            outputs=outputs,
            output_tree=tree,
            captured=self.captured,
            specializations=self.specializations,
            num_user_args=len(self.inputs),
            ops=self.ops,
            mutated_args=sorted(set(self.mutated.values())),
            value_specs=list(self.value_specs),
            captured_names=list(self.captured_names),
            captured_perms=list(self.captured_perms),
            captured_origs=list(self.captured_origs),
            layout_read=self.layout_read,
            arg_names=[self.input_names[i] if i < len(self.inputs) and i < len(self.input_names)
                       else self.graph.labels.get(f"%arg{i}") for i in range(self.graph.nargs)],
            size_guards=list(self.size_guards),
            program=program,
            captured_value_names=[v.name for v in self.captured_values],
            eager_inputs=list(self.eager_inputs),
            unsigned_results=[] if program is not None else
            [k for k, v in enumerate(results) if v.dtype == torch.uint8],
            seed_index=getattr(self, "seed_index", None),
        )


# Functions whose size arguments may be SymInts: PyTorch's C++ argument
# parser would convert a SymInt with __index__ (a specialization) before
# the call reaches the tracer; the wrapper hands such calls to the tracer's
# mode first, as Dynamo's SymInts are handed over natively.
# (The rest of PyTorch's C++ functions fail on a SymInt with a TypeError,
# and the trace restarts reading sizes as numbers: see tgc._trace_loop.)
def dense_permutation(t: torch.Tensor) -> Optional[Tuple[int, ...]]:
    """A permutation `p` of t's dims with `t.permute(p)` contiguous, or
    None (a slice with gaps, an expanded dim)."""
    p = tuple(sorted(range(t.dim()), key=lambda d: (-t.stride(d), d)))
    return p if t.permute(p).is_contiguous() else None
