"""``torch.compile(model, backend="tgc")`` (PyTorch 2.x).

Dynamo hands the backend a torch-level FX graph and example inputs; the
backend returns a TGC-compiled callable for it (guard-dispatched like
``tgc.compile``: Dynamo's own guards decide when the graph is reused, TGC's
decide which compiled specialization runs). Dims Dynamo made dynamic
arrive as symbolic sizes and stay dynamic here.
"""

from __future__ import annotations

import weakref
from typing import List

import torch

from ._compile import CompiledFunction
from .fx import graph_module_runner


# The compiled functions this backend made (tools such as utils/zoo sum
# their explanations: compiles and eager fallbacks per model).
_graphs: "weakref.WeakSet" = weakref.WeakSet()


def graphs() -> List[CompiledFunction]:
    """The live compiled graphs made by torch.compile(backend="tgc")."""
    return list(_graphs)


def tgc_backend(gm: torch.fx.GraphModule, example_inputs: List, **kwargs):
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    dynamic = {}
    unused_ints = set()
    tensor_index = 0
    for pos, (node, x) in enumerate(zip(placeholders, example_inputs)):
        val = node.meta.get("example_value", node.meta.get("val"))
        if isinstance(x, torch.Tensor):
            shape = getattr(val, "shape", x.shape)
            dims = {d for d, s in enumerate(shape) if not isinstance(s, int)}
            if dims:
                dynamic[tensor_index] = dims
            tensor_index += 1
        elif isinstance(val, torch.SymInt) or type(x).__name__ == "SymInt":
            if not node.users:
                # A size Dynamo passes along but the graph never uses: it
                # must not become part of the specialization key.
                unused_ints.add(pos)
    options = kwargs.get("options") or {}
    mode = options.get("mode", "default")
    run = graph_module_runner(gm)
    compiled = CompiledFunction(run, dynamic=False, mode=mode, fallback=True)
    compiled.declared_dynamic = dynamic
    compiled.name = "dynamo_graph"
    _graphs.add(compiled)

    def call(*args):
        if unused_ints:
            args = tuple(None if i in unused_ints else a for i, a in enumerate(args))
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
