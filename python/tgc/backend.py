"""``torch.compile(model, backend="tgc")`` (PyTorch 2.x).

Dynamo hands the backend a torch-level FX graph and example inputs; the
backend returns a TGC-compiled callable for it (guard-dispatched like
``tgc.compile``: Dynamo's own guards decide when the graph is reused, TGC's
decide which compiled specialization runs). Dims Dynamo made dynamic
arrive as symbolic sizes and stay dynamic here.
"""

from __future__ import annotations

from typing import List

import torch

from ._compile import CompiledFunction
from .fx import graph_module_runner


def tgc_backend(gm: torch.fx.GraphModule, example_inputs: List, **kwargs):
    dynamic = {}
    tensor_index = 0
    for x in example_inputs:
        if isinstance(x, torch.Tensor):
            dims = {d for d, s in enumerate(x.shape) if not isinstance(s, int)}
            if dims:
                dynamic[tensor_index] = dims
            tensor_index += 1
    mode = kwargs.get("options", {}).get("mode", "default") if kwargs.get("options") else "default"
    run = graph_module_runner(gm)
    compiled = CompiledFunction(run, dynamic=False, mode=mode, fallback=True)
    compiled.declared_dynamic = dynamic
    compiled.name = "dynamo_graph"

    def call(*args):
        out = compiled(*args)
        # Dynamo expects a tuple or list of outputs, as the graph returns.
        return out

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
