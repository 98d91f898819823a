"""What the tracer patches in PyTorch while a trace runs (tgc._trace.Tracer
enters and leaves them): on PyTorch 1.13, indexing that is not routed
through torch functions is rewritten to a routed form (:func:`_routed_index`),
and torch functions and Tensor methods that take sizes route a call with a
symbolic size (a SymInt) through the tracer (:func:`_patch_size_functions`);
`torch.compiler.is_compiling()` answers True (:func:`_enter_compiling`); and
TorchScript functions and methods are traced through or run as graph breaks
(:func:`_patch_script_calls`).
"""

from __future__ import annotations

import types

import torch

from ._sym import SymInt


def _routed_index(index):
    """An index PyTorch 1.13 routes through torch functions, for the same
    indexing: x[i], x[a:b], x[None] and x[...] (not a tuple) as x[(i,)];
    x[t] and x[(t,)] (a tensor) as x[t, ...]."""
    if not isinstance(index, tuple) and (
        index is None or index is Ellipsis or isinstance(index, (int, slice))
    ) and not isinstance(index, bool):
        return (index,)
    if isinstance(index, torch.Tensor) or (
            isinstance(index, tuple) and len(index) == 1
            and isinstance(index[0], torch.Tensor)):
        return (index[0] if isinstance(index, tuple) else index, Ellipsis)
    # x[i, j] of tensors only, and x[True]: not routed either (the result
    # became a constant of the first call), the same indexing with a
    # trailing `...` is. A list is first what PyTorch makes of it: a tuple
    # when it is short and holds a tensor, a sequence, a slice, None or
    # `...` (treatSequenceAsTuple), else one index.
    if isinstance(index, list):
        if len(index) < 32 and any(
                isinstance(i, (torch.Tensor, list, tuple, slice)) or i is None or i is Ellipsis
                for i in index):
            return _routed_index(tuple(index))
        return (index, Ellipsis)
    if isinstance(index, bool):
        return (index, Ellipsis)
    if isinstance(index, tuple) and index and all(
            isinstance(i, (torch.Tensor, bool, list)) for i in index):
        return index + (Ellipsis,)
    return index


_SIZE_METHODS = (
    "view", "reshape", "expand", "broadcast_to", "narrow", "new_zeros", "new_ones",
    "new_full", "new_empty", "repeat", "tile", "roll", "split", "chunk", "unflatten",
    "topk", "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder",
    "pow", "fill_", "masked_fill", "masked_fill_", "clamp", "clamp_min", "clamp_max",
    "new_tensor", "tril", "triu", "__add__", "__radd__", "__iadd__", "__sub__",
    "__rsub__", "__isub__", "__mul__", "__rmul__", "__imul__", "__truediv__",
    "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
    "__rmod__", "__pow__", "__rpow__", "__lt__", "__le__", "__gt__", "__ge__",
    "__eq__", "__ne__")
_SIZE_FUNCTIONS = (
    "zeros", "ones", "full", "empty", "arange", "narrow", "reshape", "broadcast_to",
    "tensor", "as_tensor", "scalar_tensor", "full_like", "add", "sub", "mul", "div",
    "clamp", "where", "tril", "triu", "linspace", "randn", "rand", "randint", "split",
    "chunk", "roll", "topk")


def _enter_compiling():
    """Makes `torch.compiler.is_compiling()` answer True, as it does while
    torch.export's non-strict trace runs the model's Python (the same flag):
    libraries ask it to leave out what a graph compiler cannot trace, such
    as Hugging Face's data-dependent checks that only choose a faster
    attention mask (`padding_mask.all()`) or print a warning (`pad_token_id
    in input_ids`), which made OPT, BART and DeBERTa-v2 fail to compile.
    Returns the flag's old value (None where PyTorch has no such flag: 1.13)."""
    compiler = getattr(torch, "compiler", None)
    if compiler is None or not hasattr(compiler, "_is_compiling_flag"):
        return None
    old = compiler._is_compiling_flag
    compiler._is_compiling_flag = True
    return old


def _leave_compiling(old) -> None:
    if old is not None:
        torch.compiler._is_compiling_flag = old


def _has_symint(x) -> bool:
    if isinstance(x, SymInt):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has_symint(e) for e in x)
    return False


def _patch_size_functions():
    from torch.overrides import handle_torch_function

    patched = []
    for owner, names in ((torch.Tensor, _SIZE_METHODS), (torch, _SIZE_FUNCTIONS)):
        for name in names:
            orig = getattr(owner, name, None)
            if orig is None:
                continue

            def wrapper(*args, __orig=orig, **kwargs):
                if _has_symint(args) or _has_symint(tuple(kwargs.values())):
                    tensors = [a for a in args if isinstance(a, torch.Tensor)]
                    return handle_torch_function(__orig, tensors, *args, **kwargs)
                return __orig(*args, **kwargs)

            wrapper.__name__ = getattr(orig, "__name__", name)
            own = name in vars(owner)  # else inherited (torch._C._TensorBase)
            setattr(owner, name, wrapper)
            patched.append((owner, name, orig if own else None))
    return patched


def _patch_script_calls():
    """Calls of TorchScript functions and methods (`torch.jit.script`,
    `torch.jit.trace`; HF DeBERTa's helpers) during a trace. Their operators
    run in TorchScript's interpreter, which the tracer never sees: their
    results were taken for tensors from outside the function, constants of
    the first call (a wrong answer). A function PyTorch 2.x scripted from
    Python (`_torchdynamo_inline`, what Dynamo inlines) has its Python traced
    instead; any other call reaches the tracer as one operator it has no
    handler for: a graph break that runs the TorchScript code at every call."""
    from torch.overrides import handle_torch_function

    patched = []
    classes = [getattr(torch.jit, "ScriptFunction", None), getattr(torch._C, "ScriptMethod", None)]
    for cls in classes:
        orig = vars(cls).get("__call__") if cls is not None else None
        if orig is None:
            continue

        def call(self, *args, __orig=orig, **kwargs):
            python = getattr(self, "_torchdynamo_inline", None)
            if isinstance(python, types.FunctionType):
                return python(*args, **kwargs)

            def torchscript(*a, **k):
                return __orig(self, *a, **k)

            torchscript.tgc_torchscript = getattr(self, "name", None) or "?"
            tensors = [a for a in list(args) + list(kwargs.values())
                       if isinstance(a, torch.Tensor)]
            return handle_torch_function(torchscript, tensors, *args, **kwargs)

        cls.__call__ = call
        patched.append((cls, "__call__", orig))
    return patched
