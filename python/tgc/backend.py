"""``torch.compile(model, backend="tgc")`` (PyTorch 2.x).

Dynamo hands the backend a torch-level FX graph and example inputs; the
backend returns a TGC-compiled callable for it (guard-dispatched like
``tgc.compile``: Dynamo's own guards decide when the graph is reused, TGC's
decide which compiled specialization runs). Dims Dynamo made dynamic
arrive as symbolic sizes and stay dynamic here; a SymInt input that is the
size of such a dim (Dynamo's ``s0`` beside a tensor of size ``s0``) is read
from the tensor as a symbolic size, so one TGC compile serves every value
of it.
"""

from __future__ import annotations

import weakref
from typing import Dict, List

import torch

from ._compile import CompiledFunction
from ._graph import Unsupported
from .fx import graph_module_runner


# The compiled functions this backend made (tools such as utils/zoo sum
# their explanations: compiles and eager fallbacks per model).
_graphs: "weakref.WeakSet" = weakref.WeakSet()


def graphs() -> List[CompiledFunction]:
    """The live compiled graphs made by torch.compile(backend="tgc")."""
    return list(_graphs)


def _sym_expr(s):
    """The sympy expression of a torch.SymInt (None for a plain int)."""
    node = getattr(s, "node", None)
    return getattr(node, "expr", None)


def tgc_backend(gm: torch.fx.GraphModule, example_inputs: List, **kwargs):
    if torch.is_grad_enabled() and any(
            isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs):
        # Training (Dynamo guards grad mode and requires_grad, so this graph
        # is only reused for calls that need gradients too).
        return _training_backend(gm, example_inputs, **kwargs)
    return _inference_backend(gm, example_inputs, **kwargs)


def _training_backend(gm: torch.fx.GraphModule, example_inputs: List, **kwargs):
    """AOTAutograd (PyTorch 2.x: functionalization, the joint graph, the
    partition, input mutations, symbolic sizes) with TGC compiling the
    forward and the backward graph it makes (docs/training.md)."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    from ._autograd import decompositions

    def compiler(graph, inputs):
        # (AOTAutograd calls it with the list of arguments: "boxed")
        return make_boxed_func(_inference_backend(graph, inputs, **kwargs))

    return aot_autograd(fw_compiler=compiler, bw_compiler=compiler,
                        decompositions=decompositions())(gm, example_inputs)


def _lift_written_attributes(gm: torch.fx.GraphModule):
    """(graph module, targets): a copy of `gm` in which every tensor
    attribute the graph updates in place (Dynamo's graph of an optimizer
    step reads the parameters and their state as attributes and updates
    them with _foreach_*_ operators) is an input after the others, and
    those attributes' targets in the order of the new inputs; `gm` itself
    and no targets when there is none. TGC updates its inputs in place,
    and must not write tensors from outside the function it compiles.
    (Dynamo still reads its own graph after the backend returns.)"""
    from ._ops.core import func_name
    from ._ops.writes import written_operands

    attrs = {n: n.target for n in gm.graph.nodes if n.op == "get_attr"}
    written: List[str] = []
    for n in gm.graph.nodes:
        if n.op not in ("call_function", "call_method"):
            continue
        try:
            name = func_name(n.target)
        except Unsupported:
            continue
        for a in written_operands(name, n.args, n.kwargs,
                                  lambda a: isinstance(a, torch.fx.Node) and a in attrs):
            if attrs[a] not in written and isinstance(_fetch(gm, attrs[a]), torch.Tensor):
                written.append(attrs[a])
    if not written:
        return gm, []
    graph = torch.fx.Graph()
    copies: Dict = {}
    graph.output(graph.graph_copy(gm.graph, copies))
    gm = torch.fx.GraphModule(gm, graph)
    attrs = {copies[n]: t for n, t in attrs.items()}
    # One input per tensor: every read of it too (a read of the attribute
    # would see the caller's tensor, not the one the graph updates), and
    # two attributes holding one tensor (a parameter and its name in the
    # optimizer's groups) are one input (two would alias).
    by_tensor: Dict[int, str] = {}
    for t in written:
        by_tensor.setdefault(id(_fetch(gm, t)), t)
    targets = list(by_tensor.values())
    last = [n for n in gm.graph.nodes if n.op == "placeholder"][-1:]
    inputs = {}
    for i, t in enumerate(targets):
        anchor = last[0] if last else next(iter(gm.graph.nodes))
        with (gm.graph.inserting_after(anchor) if last else gm.graph.inserting_before(anchor)):
            p = gm.graph.placeholder(f"tgc_written_attr_{i}")
        last = [p]
        inputs[id(_fetch(gm, t))] = p
    for a, target in attrs.items():
        value = _fetch(gm, target)
        p = inputs.get(id(value)) if isinstance(value, torch.Tensor) else None
        if p is not None:
            a.replace_all_uses_with(p)
            gm.graph.erase_node(a)
    gm.recompile()
    return gm, targets


def _fetch(gm: torch.nn.Module, target: str):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _inference_backend(gm: torch.fx.GraphModule, example_inputs: List, **kwargs):
    gm, lifted = _lift_written_attributes(gm)
    # (the graph module's attributes are fixed: Dynamo guards them)
    lifted = tuple(_fetch(gm, t) for t in lifted)
    if lifted:
        example_inputs = list(example_inputs) + list(lifted)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    dynamic = {}
    unused_ints = set()
    # A SymInt input that is the size of a dynamic tensor dim (Dynamo passes
    # s0 beside the tensor of size s0): position -> (tensor position, dim).
    # It is read from that tensor as a symbolic size, not keyed by value.
    dim_of_symbol = {}
    size_ints = {}
    tensor_index = 0
    for pos, (node, x) in enumerate(zip(placeholders, example_inputs)):
        val = node.meta.get("example_value", node.meta.get("val"))
        if isinstance(x, torch.Tensor):
            shape = getattr(val, "shape", x.shape)
            dims = {d for d, s in enumerate(shape) if not isinstance(s, int)}
            if dims:
                dynamic[tensor_index] = dims
            for d in dims:
                e = _sym_expr(shape[d])
                if e is not None and getattr(e, "is_Symbol", False):
                    dim_of_symbol.setdefault(e, (pos, d))
            tensor_index += 1
        elif isinstance(val, torch.SymInt) or type(x).__name__ == "SymInt":
            if not node.users:
                # A size Dynamo passes along but the graph never uses: it
                # must not become part of the specialization key.
                unused_ints.add(pos)
            else:
                e = _sym_expr(val)
                if e is not None:
                    size_ints[pos] = e
    sym_inputs = {pos: dim_of_symbol[e] for pos, e in size_ints.items() if e in dim_of_symbol}
    options = kwargs.get("options") or {}
    mode = options.get("mode", "default")
    run = graph_module_runner(gm, sym_inputs)
    compiled = CompiledFunction(run, dynamic=False, mode=mode, fallback=True)
    compiled.declared_dynamic = dynamic
    compiled.name = "dynamo_graph"
    _graphs.add(compiled)
    dropped = unused_ints | set(sym_inputs)

    def call(*args):
        if dropped:
            args = tuple(None if i in dropped else a for i, a in enumerate(args))
        if lifted:
            args = tuple(args) + lifted
        return compiled(*args)

    call._tgc_compiled = compiled
    return call


def _register() -> None:
    try:
        from torch._dynamo import register_backend
    except ImportError:  # PyTorch 1.x
        return
    try:
        register_backend(name="tgc")(tgc_backend)
    except Exception:  # already registered (module reloaded)
        pass


_register()
