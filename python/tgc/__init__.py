"""TGC from Python: compile PyTorch functions and modules with TGC.

    import tgc
    fast = tgc.compile(model)            # or torch.compile(model, backend="tgc")
    y = fast(x)
    print(tgc.explain(fast))

See docs/python.md.
"""

from __future__ import annotations

from typing import Callable, Optional

from ._capi import TgcError, cuda_available
from ._check import AccuracyError, get_check, set_check
from ._compile import (
    CompiledFunction,
    Explanation,
    RecompileError,
    explain,
    get_stance,
    set_logs,
    set_stance,
)
from ._graph import Unsupported
from ._cache import load_cache, save_cache
from ._profile import Profile, profile

__all__ = [
    "compile",
    "explain",
    "profile",
    "Profile",
    "save_cache",
    "load_cache",
    "set_stance",
    "get_stance",
    "set_logs",
    "set_check",
    "get_check",
    "AccuracyError",
    "trace_to_mlir",
    "CompiledFunction",
    "Explanation",
    "RecompileError",
    "TgcError",
    "Unsupported",
    "cuda_available",
]

__version__ = "0.1.0"


def compile(
    fn_or_module: Optional[Callable] = None,
    *,
    dynamic: Optional[bool] = None,
    mode: str = "default",
    device: Optional[str] = None,
    fullgraph: Optional[bool] = None,
    fallback: bool = False,
    recompile_limit: int = 8,
    options: str = "",
):
    """Compiles a function, an ``nn.Module`` or a ``torch.export``
    ExportedProgram with TGC; returns a callable.

    dynamic: None (PyTorch's automatic mode: static first, sizes that
      change become dynamic on the first recompile), True (every size
      dynamic), False (every size static).
    mode: "default" or "reduce-overhead" (CUDA graphs on the GPU).
    device: None (the inputs' device), "cpu" or "cuda".
    fullgraph: False (as torch.compile): a call TGC cannot compile is a
      graph break, run eagerly between compiled regions (tgc.explain lists
      each break); True: it raises Unsupported naming every such call.
      None: False, or True where the environment sets TGC_FULLGRAPH=1 (how
      the e2e suite measures operator coverage).
    fallback: run eagerly, with a warning, what TGC cannot compile (and
      after the recompile limit) instead of raising.
    options: extra compiler options (see tgc_compiler.h), e.g. "fuse=0".
    Usable as a decorator, with or without arguments.
    """
    if fullgraph is None:
        import os

        fullgraph = os.environ.get("TGC_FULLGRAPH", "0") not in ("", "0")
    if fn_or_module is None:
        return lambda f: compile(
            f, dynamic=dynamic, mode=mode, device=device, fullgraph=fullgraph,
            fallback=fallback, recompile_limit=recompile_limit, options=options,
        )
    import torch.fx

    from .fx import compile_exported, compile_graph_module, is_exported_program
    from ._optim import CompiledOptimizerStep, optimizer_of

    opt = optimizer_of(fn_or_module)
    if opt is not None:
        # opt.step of a torch.optim optimizer: its arithmetic over the
        # parameter lists, compiled per group (tgc._optim). Parameters keep
        # their sizes, so the inner functions are static; a break there
        # would write the parameters eagerly, so it is an error instead.
        return CompiledOptimizerStep(
            opt, dynamic=False, mode=mode, device=device,
            fullgraph=True, fallback=fallback, recompile_limit=recompile_limit,
            options=options)

    if isinstance(fn_or_module, torch.fx.GraphModule):
        return compile_graph_module(
            fn_or_module, dynamic=dynamic, mode=mode, device=device,
            fullgraph=fullgraph, fallback=fallback,
            recompile_limit=recompile_limit, options=options,
        )
    if is_exported_program(fn_or_module):
        return compile_exported(
            fn_or_module, mode=mode, device=device, fallback=fallback, fullgraph=fullgraph,
            recompile_limit=recompile_limit, options=options,
        )
    compiled = CompiledFunction(
        fn_or_module, dynamic=dynamic, mode=mode, device=device,
        fullgraph=fullgraph, fallback=fallback,
        recompile_limit=recompile_limit, options=options,
    )
    try:
        import functools

        # Its name, qualified name, module and docstring, not its __dict__:
        # a module's attributes (self.fn, EmbeddingBag's mode) replaced the
        # compiled function's own (which function runs, its mode).
        functools.update_wrapper(compiled, fn_or_module, updated=())
    except (AttributeError, TypeError):
        pass
    return compiled


def trace_to_mlir(fn: Callable, *args, dynamic: Optional[bool] = False, **kwargs) -> str:
    """The tgc dialect text TGC records for ``fn(*args, **kwargs)``."""
    import torch

    from ._compile import _entry_name, flatten, unflatten
    from ._trace_loop import trace

    tensors, key = flatten((args, kwargs))
    dims = [set(range(t.dim())) if dynamic else set() for t in tensors]

    def run(*ts):
        a, k = unflatten(key, list(ts))
        with torch.no_grad():
            return fn(*a, **k)

    clones = [t.detach().clone() for t in tensors]
    return trace(run, clones, dims, name=_entry_name(fn), originals=tensors).text


try:  # the torch.compile backend (PyTorch 2.x)
    from . import backend as _backend  # noqa: F401
except Exception:  # pragma: no cover - PyTorch 1.x has no Dynamo
    pass
