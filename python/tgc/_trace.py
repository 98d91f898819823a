"""Records PyTorch calls into a ``tgc`` graph.

:class:`Tracer` runs the user's function eagerly on the example inputs under
a ``TorchFunctionMode`` (PyTorch 1.13 and 2.x). Every torch call on a traced
tensor is executed for real (so control flow, dtypes and shapes are exactly
PyTorch's) and recorded as ``tgc`` ops through the handlers of
:mod:`tgc._ops`. The FX importer drives the same recorder node by node.

Whenever Python reads a size (``x.shape[0]``, ``x.size(1)``, ``len(x)``)
the input sizes it comes from are specialized, with the file and line of
the read as the guard's reason; data-dependent control flow
(``bool(t)``, ``t.item()``) cannot be guarded and is reported as
unsupported.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import torch
from torch.overrides import TorchFunctionMode

from ._graph import Dyn, Graph, Unsupported, Value, mlir_dtype, size_value

# With a trailing separator: "…/torch" must not match "…/torchvision".
_TORCH_DIR = os.path.join(os.path.dirname(torch.__file__), "")
_TGC_DIR = os.path.join(os.path.dirname(__file__), "")


def user_frame() -> Tuple[str, int]:
    """File and line of the innermost frame outside torch and tgc."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if not (
            name.startswith(_TORCH_DIR)
            or name.startswith(_TGC_DIR)
            or name.startswith("<frozen")
            or "/torch/fx/" in name
        ):
            return name, f.f_lineno
        f = f.f_back
    return "<unknown>", 0


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


class TracedSize(tuple):
    """``x.shape`` during tracing: reading an element specializes it."""

    def __new__(cls, tracer: "Tracer", value: Value, sizes: Sequence[int]):
        obj = super().__new__(cls, tuple(int(s) for s in sizes))
        obj._tracer = tracer
        obj._value = value
        return obj

    def _read(self, dims, what: str):
        for d in dims:
            self._tracer.specialize(self._value.shape[d], what)

    def __getitem__(self, index):
        r = super().__getitem__(index)
        dims = range(len(self))[index]
        self._read([dims] if isinstance(dims, int) else list(dims), "size read")
        if isinstance(index, slice):
            return tuple(r)
        return r

    def __iter__(self):
        self._read(range(len(self)), "size read")
        return super().__iter__()

    def __eq__(self, other):
        self._read(range(len(self)), "size comparison")
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def numel(self) -> int:
        self._read(range(len(self)), "numel()")
        n = 1
        for s in tuple.__iter__(self):
            n *= s
        return n

    def __repr__(self) -> str:
        return "torch.Size([" + ", ".join(str(s) for s in tuple.__iter__(self)) + "])"


@dataclass
class TraceResult:
    graph: Graph
    text: str
    # How each user output is produced: ("result", i), ("arg", i) (an input
    # object returned as is) or ("const", obj).
    outputs: List[Tuple[str, Any]]
    output_tree: Any
    captured: List[torch.Tensor]
    specializations: List[Specialization]
    num_user_args: int
    ops: int
    mutated_args: List[int] = field(default_factory=list)
    # One-element inputs read as numbers: (input index, value).
    value_specs: List[Tuple[int, Any]] = field(default_factory=list)
    # Parameter or buffer name of each captured tensor (None: not one of
    # the compiled module's), and the Python values the trace read.
    captured_names: List[Optional[str]] = field(default_factory=list)
    value_guards: List[Any] = field(default_factory=list)


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
    ):
        super().__init__()
        self.graph = Graph(name=name)
        self.tensor_names = tensor_names or {}
        self.captured_names: List[Optional[str]] = []
        self.values: Dict[int, Tuple[torch.Tensor, Value]] = {}
        self.keep: List[Any] = []
        self.inputs = list(inputs)
        self.input_values: List[Optional[Value]] = []
        self.specializations: List[Specialization] = list(specializations)
        self.captured: List[torch.Tensor] = []
        self.mutated: Dict[int, int] = {}  # id(tensor) -> argument index
        self.errors: List[str] = []
        self.poisoned: Dict[int, torch.Tensor] = {}
        self.value_specs: List[Tuple[int, Any]] = []
        self.ops = 0
        for i, x in enumerate(self.inputs):
            if isinstance(x, torch.Tensor):
                shape = []
                for d, s in enumerate(x.shape):
                    s = int(s)
                    if d in dynamic[i] and s > 1:
                        shape.append(Dyn({(i, d)}, s))
                    else:
                        shape.append(s)
                v = self.graph.add_arg(x.dtype, shape)
                self.bind(x, v)
                self.input_values.append(v)
            else:
                self.input_values.append(None)

    # -- values ------------------------------------------------------------

    def bind(self, t: torch.Tensor, v: Value) -> None:
        self.values[id(t)] = (t, v)
        self.keep.append(t)

    def poison(self, t: torch.Tensor) -> None:
        self.poisoned[id(t)] = t

    def value_of(self, t: torch.Tensor) -> Value:
        entry = self.values.get(id(t))
        if entry is not None and entry[0] is t:
            return entry[1]
        if self.poisoned.get(id(t)) is t:
            raise Poisoned()
        # A tensor the trace did not produce: a view we could not see (an
        # integer index on PyTorch 1.13 bypasses torch functions) must not
        # be mistaken for a constant.
        try:
            ptr = t.untyped_storage().data_ptr()  # type: ignore[attr-defined]
        except AttributeError:
            ptr = t.storage().data_ptr()
        for known, _ in self.values.values():
            try:
                kptr = known.untyped_storage().data_ptr()  # type: ignore
            except AttributeError:
                kptr = known.storage().data_ptr()
            if kptr == ptr and ptr != 0:
                raise Unsupported(
                    "a view of a traced tensor was created without a torch "
                    "call TGC can see (on PyTorch 1.13, x[i] with an integer "
                    "i); write x.select(dim, i) or x[i:i+1]",
                    "%s:%d" % user_frame(),
                )
        # A tensor from outside the function (a global, a closure, a
        # parameter of a module called inside): an extra input, passed by
        # reference on every call.
        v = self.graph.add_arg(t.dtype, [int(s) for s in t.shape])
        self.captured.append(t)
        self.captured_names.append(self.tensor_names.get(id(t)))
        self.bind(t, v)
        return v

    def specialize(self, size, what: str) -> None:
        if not isinstance(size, Dyn):
            return
        file, line = user_frame()
        known = {(s.arg, s.dim) for s in self.specializations}
        new = False
        for arg, dim in sorted(size.sources - known):
            # The traced size, not inputs[arg].shape: that read would come
            # back here through the mode.
            value = size_value(self.input_values[arg].shape[dim])
            self.specializations.append(
                Specialization(arg, dim, value, f"{what} at {file}:{line}")
            )
            new = True
        if new:
            raise NeedRetrace()

    def loc(self) -> str:
        file, line = user_frame()
        return mlir_loc(file, line)

    # -- interception --------------------------------------------------------

    def __enter__(self):
        # PyTorch 1.13 does not route x[i], x[a:b] and x[None] (an index
        # that is not a tuple) through torch functions; x[(i,)] is the same
        # indexing and is routed.
        if not hasattr(Tracer, "_orig_getitem"):
            orig = torch.Tensor.__getitem__

            def getitem(self_, index):
                if not isinstance(index, tuple) and (
                    index is None
                    or index is Ellipsis
                    or isinstance(index, (int, slice))
                ) and not isinstance(index, bool):
                    index = (index,)
                return orig(self_, index)

            Tracer._orig_getitem = orig
            torch.Tensor.__getitem__ = getitem
        Tracer._depth = getattr(Tracer, "_depth", 0) + 1
        return super().__enter__()

    def __exit__(self, *exc):
        Tracer._depth -= 1
        if Tracer._depth == 0 and hasattr(Tracer, "_orig_getitem"):
            torch.Tensor.__getitem__ = Tracer._orig_getitem
            del Tracer._orig_getitem
        return super().__exit__(*exc)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        from . import _ops

        return _ops.dispatch(self, func, args, kwargs)

    # -- results ---------------------------------------------------------------

    def finish(self, out: Any) -> TraceResult:
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

        def walk(o):
            if isinstance(o, torch.Tensor):
                if id(o) in input_ids:
                    outputs.append(("arg", input_ids[id(o)]))
                else:
                    results.append(self.value_of(o))
                    outputs.append(("result", len(results) - 1))
                return ("leaf", len(outputs) - 1)
            if isinstance(o, TracedSize):
                # Returned sizes are numbers the caller sees: specialized.
                o._read(range(len(o)), "returned size")
                outputs.append(("const", torch.Size(tuple.__iter__(o))))
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
                                           torch.device, enum.Enum)):
                outputs.append(("const", o))
                return ("leaf", len(outputs) - 1)
            raise Unsupported(f"an output of type {type(o).__name__}")

        tree = walk(out)
        # In-place updates of inputs: write the final value into the input.
        for tid, arg in self.mutated.items():
            t, v = self.values[tid]
            target = self.input_values[arg]
            if v is not target:
                self.graph.emit(
                    f"tgc.write_out {v.name} into {target.name} : {v.type} into "
                    f"{target.type}",
                    [],
                )
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
        )


_active: List["Tracer"] = []


def current_tracer() -> Optional["Tracer"]:
    return _active[-1] if _active else None


def rebuild(tree, leaves: Sequence[Any]):
    """The output structure of the traced call with `leaves` in it: the
    types eager returns (tuples, lists, namedtuples, torch.return_types,
    dicts and dict subclasses such as HF's ModelOutput, dataclasses)."""
    kind = tree[0]
    if kind == "leaf":
        return leaves[tree[1]]
    if kind == "dataclass":
        cls, fields = tree[1], tree[2]
        return cls(**{n: rebuild(v, leaves) for n, v in fields.items()})
    payload = tree[1]
    if isinstance(kind, type) and issubclass(kind, dict):
        items = {k: rebuild(v, leaves) for k, v in payload.items()}
        if kind is dict:
            return items
        if dataclasses.is_dataclass(kind):  # HF ModelOutput: fields as keywords
            return kind(**items)
        return kind(items)
    items = [rebuild(e, leaves) for e in payload]
    if kind in (list, tuple) or not hasattr(kind, "_fields"):
        return kind(items)  # list, tuple, torch.return_types.*
    return kind(*items)  # a namedtuple


def trace(
    fn: Callable,
    inputs: Sequence[Any],
    dynamic: Sequence[Set[int]],
    name: str = "traced",
    module: Optional[torch.nn.Module] = None,
    source: Optional[Callable] = None,
) -> TraceResult:
    """Traces `fn(*inputs)`; dims of `dynamic` sizes read by Python become
    static and the trace restarts (at most once per input dim)."""
    # One trace at a time in the process: the tracer patches
    # torch.Tensor.__getitem__ and keeps the active tracer in a global.
    with _trace_lock:
        return _trace(fn, inputs, dynamic, name, module, source)


_trace_lock = threading.RLock()


def _trace(fn, inputs, dynamic, name, module, source) -> TraceResult:
    """`module`: the compiled module (its parameters and buffers are named,
    its attribute reads recorded); `source`: the user's function or module,
    whose globals and closure are guarded."""
    from . import _state

    dyn = [set(d) for d in dynamic]
    specs: List[Specialization] = []
    names = _state.tensor_names(module) if module is not None else {}
    module_names = _state.module_names(module) if module is not None else {}
    for _ in range(64):
        tracer = Tracer(inputs, dyn, name, specs, names)
        recorder = _state.AttributeRecorder(module_names, user_frame)
        _active.append(tracer)
        _state.start_recording(recorder)
        try:
            with tracer:
                out = fn(*inputs)
            result = tracer.finish(out)
            result.value_guards = list(recorder.reads.values())
            if source is not None:
                result.value_guards += _state.function_value_guards(source)
            return result
        except NeedRetrace:
            specs = tracer.specializations
            for s in specs:
                dyn[s.arg].discard(s.dim)
        finally:
            _state.stop_recording()
            _active.pop()
    raise Unsupported("tracing did not converge")
