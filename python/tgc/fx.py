"""FX importer: ``torch.fx.GraphModule`` and ``torch.export`` programs.

A GraphModule is interpreted node by node on the call's real inputs; every
node goes through the recorder the tracer uses, so torch-level graphs
(``symbolic_trace``, what Dynamo hands a backend: ``torch.add``,
``operator.add``, tensor methods, submodules) and aten-level graphs
(``torch.ops.aten.*`` overloads, as in an ExportedProgram) map through one
operator table. ``compile_exported`` compiles an ExportedProgram: its user
inputs become the callable's arguments, its parameters and buffers are
passed by reference, and the dims declared with ``torch.export.Dim`` are
dynamic, with their ranges checked on every call.
"""

from __future__ import annotations

import operator
import types
from typing import Dict, Optional, Set, Tuple

import torch
import torch.fx

from . import _scalars
from ._compile import CompiledFunction
from ._scalars import has_data


# The placeholder of a training forward graph that takes the random ops'
# seed (a 0-d int64 tensor the caller draws per call).
SEED_INPUT = "tgc_rng_seed"


class _Recorder(torch.fx.Interpreter):
    """Interprets a GraphModule node by node under the active tracer: every
    torch function, tensor method, submodule call and ``torch.ops.aten``
    overload a node runs is intercepted by the tracer's TorchFunctionMode
    (PyTorch 1.13 and 2.x route aten overloads through it too) and
    recorded through the operator table."""

    def __init__(self, gm: torch.fx.GraphModule, tracer):
        super().__init__(gm)
        self.tracer = tracer

    def run_node(self, n):
        # Locations (guards, graph breaks, unsupported calls) name the
        # model's line the node came from, not the interpreter's caller.
        previous, self.tracer.fx_node = self.tracer.fx_node, n
        try:
            return super().run_node(n)
        finally:
            self.tracer.fx_node = previous

    def call_function(self, target, args, kwargs):
        # A node's target is the function object itself (torch.arange,
        # torch.ops.aten.view.default): the tracer's wrappers of size-taking
        # functions are not in the way, so a call with symbolic sizes is
        # handed to the tracer's mode before PyTorch's argument parser.
        from ._trace_patches import _has_symint

        if has_data(args) or has_data(kwargs):
            return self._call_with_data(target, args, kwargs)
        if target in _FLOAT_OF_SIZES and not kwargs and _has_symint(args):
            # A float computed from sizes (a symbolic make_fx graph's
            # batch norm: numel / C, n / (n - 1)): a number in the graph
            # (tgc._scalars), not the traced call's value and a guard.
            from ._sym import SymInt

            args = tuple(_scalars.from_size(self.tracer, a) if isinstance(a, SymInt) else a
                         for a in args)
            return self._call_with_data(target, args, kwargs)
        if target in (int, float, bool) and len(args) == 1 and not kwargs and \
                isinstance(args[0], torch.Tensor):
            # int(t) in a graph: the number stays in the graph
            # (tgc._scalars), and Python's conversion of it is recorded.
            n = args[0].item()
            return self._call_with_data(target, (n,), {}) if has_data(n) else target(n)
        if target is getattr(torch, "sym_sum", None) and len(args) == 1 and not kwargs:
            # Dynamo's n-ary sum of sizes (PyTorch >= 2.6): Python's + on
            # them keeps the sum symbolic (the C++ one would read them).
            items = list(args[0])
            total = items[0] if items else 0
            for e in items[1:]:
                total = total + e
            return total
        if target is torch.Size and _has_symint(args):
            # Dynamo builds sizes with torch.Size((s0, s1, 2304)): its C++
            # constructor would read the SymInts as numbers (a
            # specialization per size); a tuple of them serves every use.
            return tuple(args[0]) if args else ()
        if _is_torch_builtin(target) and (
                _has_symint(args) or _has_symint(tuple(kwargs.values()))):
            from torch.overrides import handle_torch_function

            tensors = [a for a in args if isinstance(a, torch.Tensor)]
            return handle_torch_function(target, tensors, *args, **kwargs)
        return super().call_function(target, args, kwargs)

    def call_method(self, target, args, kwargs):
        if has_data(args) or has_data(kwargs):
            # PyTorch's argument parser would reject a DataScalar before the
            # tracer's mode sees the call.
            from torch.overrides import handle_torch_function

            method = getattr(torch.Tensor, target)
            return handle_torch_function(method, args[:1], *args, **kwargs)
        return super().call_method(target, args, kwargs)

    def _call_with_data(self, target, args, kwargs):
        """A node that reads a number computed from tensor data (a
        DataScalar): a torch operator gets it through the tracer's mode,
        Python's arithmetic on numbers is recorded (tgc._scalars), and any
        other function is a graph break that runs with the call's number."""
        from ._ops.core import _unsupported

        tr = self.tracer
        if _is_torch_builtin(target):
            from torch.overrides import handle_torch_function

            tensors = [a for a in list(args) + list(kwargs.values())
                       if isinstance(a, torch.Tensor)]
            return handle_torch_function(target, tensors, *args, **kwargs)
        from ._trace import recording_paused

        with recording_paused():
            result = _scalars.call(tr, target, args, kwargs)
        if result is not NotImplemented:
            return result
        name = getattr(target, "__name__", None) or str(target)
        real = target(*_scalars.concrete(args), **_scalars.concrete(kwargs))
        return _unsupported(tr, real, f"{name} of a number computed from tensor data",
                            call=(target, name, args, kwargs))

    def call_module(self, target, args, kwargs):
        if target == "_guards_fn":
            # torch.export's input checks read every size (which would
            # specialize the dynamic ones); compile_exported checks the
            # declared ranges itself on every call.
            return None
        return super().call_module(target, args, kwargs)


# Python operations that make a float of sizes.
_FLOAT_OF_SIZES = {operator.truediv, float} | (
    {torch.sym_float} if hasattr(torch, "sym_float") else set())


def _is_torch_builtin(target) -> bool:
    """A PyTorch function implemented in C++ (torch.* builtins, aten
    overloads), whose arguments PyTorch's parser converts."""
    if type(target).__name__ in ("OpOverload", "OpOverloadPacket"):
        return True
    return isinstance(target, types.BuiltinFunctionType) and \
        (getattr(target, "__module__", "") or "").startswith("torch")


def is_exported_program(obj) -> bool:
    return type(obj).__name__ == "ExportedProgram" and hasattr(obj, "graph_signature")


def graph_module_runner(gm: torch.fx.GraphModule, sym_inputs=None):
    """A function running `gm` through the recorder (for tgc.compile).
    `sym_inputs` maps an integer input's position to the (input position,
    dim) of the tensor size it equals: the caller passes None there and the
    size is read from the tensor (a SymInt while tracing)."""
    sym_inputs = sym_inputs or {}
    # A training forward's random ops read the seed its caller passes
    # (tgc._autograd.SEED_INPUT): the tracer's seed while tracing.
    placeholders = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
    seed_pos = placeholders.index(SEED_INPUT) if SEED_INPUT in placeholders else None

    def run(*args):
        from ._tracing import current_tracer

        tracer = current_tracer()
        if tracer is not None and seed_pos is not None:
            tracer.rng_seed = tracer.value_of(args[seed_pos])
        if sym_inputs:
            args = list(args)
            for pos, (tpos, dim) in sym_inputs.items():
                t = args[tpos]
                if tracer is not None:
                    args[pos] = tracer.sym_size(tracer.value_of(t), dim)
                else:
                    args[pos] = int(t.shape[dim])
        if tracer is None:
            return gm(*args)
        return _plain_lists(_Recorder(gm, tracer).run(*args))

    run.__name__ = "graph_module"
    # The model's names of the inputs (tgc._names): Dynamo's source of each
    # placeholder (`L['x']`, `L['self'].fc.weight`), else its name.
    run._tgc_input_names = [_placeholder_name(n) for n in gm.graph.nodes
                            if n.op == "placeholder"]
    return run


def _plain_lists(out):
    """The interpreter's output with torch.fx's immutable lists as the
    plain lists a call of the graph module returns (its generated code
    builds them): the native call path builds plain lists and tuples."""
    from torch.fx.immutable_collections import immutable_list

    if isinstance(out, immutable_list):
        return [_plain_lists(o) for o in out]
    if type(out) is tuple:
        return tuple(_plain_lists(o) for o in out)
    return out


def _placeholder_name(node) -> str:
    arg = node.meta.get("grapharg") if hasattr(node, "meta") else None
    source = getattr(arg, "source", None)
    if source is not None:
        try:
            return source.name()
        except Exception:  # noqa: BLE001 - a source kind without a name
            pass
    return str(node.target)


def compile_graph_module(gm: torch.fx.GraphModule, **kwargs) -> CompiledFunction:
    """tgc.compile for a GraphModule (torch-level or aten-level). Its
    parameters, buffers and attributes are the compiled module's state, as
    a module's (found again by name when replaced, guarded when read)."""
    fn = graph_module_runner(gm)
    fn.__tgc_module__ = gm
    return CompiledFunction(fn, **kwargs)


def compile_exported(ep, mode="default", device=None, fallback=False,
                     recompile_limit=8, options="", fullgraph=False) -> CompiledFunction:
    """Compiles an ExportedProgram; dims declared dynamic with
    torch.export.Dim stay dynamic (one compile for their whole range)."""
    gm = ep.module()
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
    sig = ep.graph_signature
    user_names = list(sig.user_inputs)
    dynamic: Dict[int, Set[int]] = {}
    ranges: Dict[Tuple[int, int], Tuple[int, Optional[int]]] = {}
    constraints = getattr(ep, "range_constraints", {}) or {}
    by_name = {n.name: n for n in placeholders}
    for i, name in enumerate(user_names):
        node = by_name.get(name)
        val = node.meta.get("val") if node is not None else None
        if val is None or not isinstance(val, torch.Tensor):
            continue
        for d, s in enumerate(val.shape):
            if isinstance(s, int):
                continue
            dynamic.setdefault(i, set()).add(d)
            expr = getattr(s, "node", None)
            expr = getattr(expr, "expr", None)
            vr = constraints.get(expr)
            if vr is not None:
                lo = int(vr.lower)
                try:
                    hi: Optional[int] = int(vr.upper)
                except (TypeError, OverflowError, ValueError):
                    hi = None
                if hi is not None and hi > 2**62:
                    hi = None
                ranges[(i, d)] = (lo, hi)
    run = graph_module_runner(gm)
    run.__name__ = "exported"
    compiled = CompiledFunction(
        run, dynamic=False, mode=mode, device=device, fallback=fallback,
        recompile_limit=recompile_limit, options=options, fullgraph=fullgraph,
    )
    compiled.declared_dynamic = dynamic
    compiled.ranges = ranges
    return compiled
