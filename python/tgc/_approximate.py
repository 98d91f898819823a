"""Approximate traces: large products and convolutions on the CPU are not
computed while tracing.

The tracer runs the model eagerly (tgc._trace), but the graph it records
depends on the values only where Python reads them (``.item()``,
``bool(t)``, printing, a graph break's eager island, a data-dependent size)
or where an operator fails on them. Everything else it records from
dtypes, shapes and strides. On a CPU, the eager products and convolutions
of a trace are most of its time (a BERT-size encoder on the CI machine:
3.1 s of an 8.3 s first call), and the compiled call computes them again
right after.

So when a trace meets a linear layer, matmul, mm, bmm, addmm, baddbmm or
1-d / 2-d convolution of float32 or float64 CPU tensors (a convolution's
operands contiguous) whose work is at least ``MIN_FLOPS``, it runs
the call on meta tensors for the result's sizes, strides and dtype, and
hands the model a zero-filled tensor of that layout instead. The memory of
that tensor, and of every tensor computed from it, is *tainted*
(``Tracer.tainted``, by storage_ptr). When tainted values would matter:

- Python reads them (the names of ``DATA_READS``, which include the
  operators that check their input's values and may raise on the real
  ones, such as the factorizations), PyTorch reads a one-element or
  integer tensor of them as a number or index, or a graph break or
  unsupported call takes them: ``NeedExact`` is raised before the call;
- an operator fails on them (an error of the zeros, say a singular
  matrix): ``NeedExact`` too, so that a model's ``try``/``except`` never
  sees an error of values it did not compute (``NeedExact`` is a
  BaseException);
- a module attribute or buffer is set to them, or a tensor set as one
  during the trace is written with them (a cache the forward fills
  outlives the trace), or a module with hooks of the model's own
  is called on them (they would keep them); global module hooks, and
  CPU autocast (its casts are not made on meta tensors), turn the
  approximation off;

the trace restarts and computes everything (the inputs put back first).
Tensors the forward stores elsewhere (a global list) are not seen: they
hold zeros after a first call, where TGC's compiled calls never store
them at all (Python side effects run at trace time only).
The graph of an approximate trace is the exact trace's, text for text
(``test_approximate_trace.py`` compares them over the zoo's models).
It is an opt-in, ``TGC_TRACE_APPROXIMATE=1``: a trace that starts again
repeats the Python side effects of the first attempt, and those may have
changed state the second one reads (a module switched to eval mode and
not back, a global dict holding zeros). GPU tensors are always computed:
their kernels run asynchronously, so a trace does not wait for them.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch

from ._trace import NeedExact, NeedRetrace, Tracer, storage_ptr

# Products and convolutions a trace may leave uncomputed (canonical names
# of tgc._ops.core._dispatch).
OPS = frozenset({
    "linear", "matmul", "rmatmul", "mm", "bmm", "addmm", "baddbmm",
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d",
})

# Below this many floating-point operations the call itself is cheaper
# than its meta call (tens of microseconds).
MIN_FLOPS = 1 << 23

# Calls that read a tensor's values into Python, or whose result's sizes
# depend on them: with a tainted operand the trace must compute everything.
DATA_READS = frozenset({
    "item", "_local_scalar_dense", "ScalarImplicit", "__float__", "__int__",
    "__index__", "__bool__", "__complex__", "tolist", "numpy", "__array__",
    "__repr__", "__str__", "__format__", "__reduce_ex__", "__contains__",
    "is_nonzero", "equal", "allclose", "nonzero", "argwhere", "masked_select",
    "unique", "unique_consecutive", "_unique", "_unique2", "bincount",
    "one_hot", "repeat_interleave", "histc", "histogram", "tensor",
    "as_tensor", "asarray", "scalar_tensor",
    # (operators that check their input's values and raise)
    "binary_cross_entropy", "multinomial", "bernoulli", "poisson", "cholesky",
    "inverse", "det", "logdet", "slogdet", "pinverse", "matrix_power", "solve",
    "triangular_solve", "cholesky_solve", "cholesky_inverse", "lstsq", "lu", "qr",
    "svd", "eig", "symeig",
})

# Operators whose every positional operand may be a one-element tensor
# taken as a tensor (a Tensor overload: its values are not read as a
# number when the call is made). Elsewhere PyTorch reads a one-element
# tensor in a number's place (`x[n:]`, `torch.full(size, t)`, `alpha=t`)
# with the tracer out of the way.
TENSOR_OPERANDS = frozenset({
    "add", "radd", "sub", "rsub", "mul", "rmul", "div", "rdiv", "true_divide",
    "floor_divide", "rfloordiv", "remainder", "fmod", "pow", "rpow", "atan2",
    "maximum", "minimum", "fmax", "fmin", "eq", "ne", "lt", "le", "gt", "ge",
    "where", "logical_and", "logical_or", "logical_xor", "logical_and_op",
    "logical_or_op", "hypot", "copysign", "xlogy", "lerp", "addcmul", "addcdiv",
})

# Products and convolutions of these element types only: the CPU kernels
# of PyTorch 1.13 reject float16 products their meta kernels accept, and
# its bfloat16 transposed convolutions size their result differently.
_FLOATS = (torch.float32, torch.float64)


def _tensors(x):
    if isinstance(x, torch.Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for e in x:
            yield from _tensors(e)
    elif isinstance(x, dict):
        for e in x.values():
            yield from _tensors(e)
    elif isinstance(x, slice):
        yield from _tensors((x.start, x.stop, x.step))


def allowed() -> bool:
    """Whether a trace starting now may leave calls uncomputed: not under
    CPU autocast (its casts are not made on meta tensors), nor with global
    module hooks of the model's (they would see values not computed;
    each module's own hooks are checked as it is called)."""
    from torch.nn.modules import module as nn_module

    autocast = getattr(torch, "is_autocast_cpu_enabled", None)
    if autocast is not None and autocast():
        return False
    for d in ("_global_forward_hooks", "_global_forward_pre_hooks"):
        if getattr(nn_module, d, None):
            return False
    return True


_setattr = None


def watch_attributes(tr: Tracer) -> None:
    """During the trace, a module attribute set to values not computed
    (a cache the forward fills: it outlives the trace) restarts it."""
    global _setattr
    if _setattr is not None:
        return
    _setattr = (torch.nn.Module.__setattr__, torch.nn.Module.register_buffer)

    def escape(value):
        if tr.tainted and any_tainted(tr, value):
            exact(tr)
        for t in _tensors(value):
            ptr = storage_ptr(t)
            if ptr:
                tr.escaped.add(ptr)

    def setattr_(self, name, value, __set=_setattr[0]):
        escape(value)
        __set(self, name, value)

    def register_buffer(self, name, tensor, *args, __register=_setattr[1], **kwargs):
        escape(tensor)
        return __register(self, name, tensor, *args, **kwargs)
    torch.nn.Module.__setattr__ = setattr_
    torch.nn.Module.register_buffer = register_buffer


def unwatch_attributes() -> None:
    global _setattr
    if _setattr is not None:
        torch.nn.Module.__setattr__, torch.nn.Module.register_buffer = _setattr
        _setattr = None


def any_tainted(tr: Tracer, x) -> bool:
    """Whether a tensor in `x` (arguments: tensors in lists, tuples, dicts)
    holds values an approximate trace did not compute."""
    tainted = tr.tainted
    return any(storage_ptr(t) in tainted for t in _tensors(x))


def need_values(tr: Tracer, *tensors: torch.Tensor) -> None:
    """A handler is about to read these tensors' values: NeedExact if one
    is tainted."""
    if tr.tainted and any_tainted(tr, tensors):
        exact(tr)


def exact(tr: Tracer):
    tr.need_exact = True
    raise NeedExact()


def _taint(tr: Tracer, x) -> None:
    for t in _tensors(x):
        ptr = storage_ptr(t)
        if ptr:
            tr.tainted.add(ptr)


def tainted_call(tr: Tracer, dispatch: Callable, func, name: str, args, kwargs):
    """`dispatch(tr, func, args, kwargs, name)` of a call with a tainted
    operand: its results, and the operands it writes, are tainted too."""
    from ._ops.writes import written_operands

    base = name.rsplit(".", 1)[-1] if name.startswith("aten.") else name
    if base in DATA_READS or base.startswith("linalg_") or \
            _reads_as_number(tr, base, args, kwargs):
        exact(tr)
    try:
        real = dispatch(tr, func, args, kwargs, name)
    except (NeedExact, NeedRetrace):
        raise
    except Exception:  # noqa: BLE001 - an error of values not computed
        exact(tr)
    written = written_operands(name, args, kwargs)
    if tr.escaped and any(storage_ptr(t) in tr.escaped for t in _tensors(written)):
        exact(tr)  # (a module attribute set during the trace, filled in place)
    _taint(tr, real)
    _taint(tr, written)
    return real


def _reads_as_number(tr: Tracer, base: str, args, kwargs) -> bool:
    """Whether the call may read a tainted operand's values itself:
    an integer tensor (indices: an index out of range raises in eager
    PyTorch, a zero does not), a tensor in a slice, or a one-element
    tensor anywhere but a tensor operand's place."""
    from ._ops.core import _ALIASES
    from ._ops.number_reads import _NUMBER_FACTORIES

    tainted = tr.tainted
    op = _ALIASES.get(base, base)
    op = op[:-1] if op.endswith("_") and not op.endswith("__") else op
    operands = op in TENSOR_OPERANDS
    for i, a in enumerate(args):
        for t in _tensors(a):
            if storage_ptr(t) not in tainted:
                continue
            if not (t.dtype.is_floating_point or t.dtype == torch.bool):
                return True
            if isinstance(a, slice) or (isinstance(a, (list, tuple)) and any(
                    isinstance(e, slice) for e in a)):
                return True
            if t.numel() == 1 and (i > 0 or op in _NUMBER_FACTORIES) and not operands:
                return True
    for t in _tensors(kwargs):
        if storage_ptr(t) in tainted and (
                t.numel() == 1 or not (t.dtype.is_floating_point or t.dtype == torch.bool)):
            return True
    return False


def _flops(name: str, args) -> int:
    """About the call's floating-point operations, from its operands'
    sizes (0 where they are not the expected tensors)."""
    t = [a for a in args if isinstance(a, torch.Tensor)]
    if name.startswith("conv"):
        if len(t) < 2 or t[0].dim() < 2 or t[1].dim() < 2 or t[0].shape[1] == 0:
            return 0
        # (per output position of a stride-1 convolution: weights / C_in)
        return 2 * t[0].numel() // t[0].shape[1] * t[1].numel()
    if name in ("addmm", "baddbmm", "addbmm"):
        t = t[1:]
    if len(t) < 2:
        return 0
    a, b = (t[1], t[0]) if name == "rmatmul" else (t[0], t[1])
    if name == "linear":
        return 2 * a.numel() * (b.shape[0] if b.dim() == 2 else 1)
    if a.dim() < 2 or b.dim() < 2:
        return 0
    # (either operand may carry the batch: [M, K] @ [B, K, N])
    return 2 * max(a.numel() * b.shape[-1], b.numel() * a.shape[-2])


def _meta(x):
    if isinstance(x, torch.Tensor):
        return torch.empty_strided(tuple(x.shape), x.stride(), dtype=x.dtype, device="meta")
    if isinstance(x, (list, tuple)):
        return type(x)(_meta(e) for e in x) if not hasattr(type(x), "_fields") else x
    return x


def call(tr: Tracer, func, name: str, args, kwargs) -> Optional[torch.Tensor]:
    """The call's result left uncomputed (zeros of its layout, tainted), or
    None where it is to run for real: a small or non-CPU call, operands
    that need gradients, or a call the meta device cannot size."""
    tensors = list(_tensors((args, kwargs)))
    if not tensors:
        return None
    autocast = getattr(torch, "is_autocast_cpu_enabled", None)
    if autocast is not None and autocast():
        return None  # (autocast's casts are not made on meta tensors)
    for t in tensors:
        if t.device.type != "cpu" or t.layout != torch.strided or t.dtype != tensors[0].dtype:
            return None
        # A convolution's result takes its operands' memory format, where
        # PyTorch's CPU kernels and its meta kernels differ (a transposed
        # convolution of channels-last operands, a transposed weight):
        # contiguous operands only.
        if name.startswith("conv") and not t.is_contiguous():
            return None
    if tensors[0].dtype not in _FLOATS:
        return None
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        return None
    if _flops(name, args) < MIN_FLOPS:
        return None
    try:
        meta = func(*_meta(list(args)), **{k: _meta(v) for k, v in kwargs.items()})
    except Exception:  # noqa: BLE001 - no meta kernel: computed for real
        return None
    if not isinstance(meta, torch.Tensor) or meta.device.type != "meta":
        return None
    # (Not zeros_like(meta, device=...): PyTorch 1.13 leaves that memory
    # as it found it.)
    out = torch.empty_strided(tuple(meta.shape), meta.stride(), dtype=meta.dtype,
                              device=tensors[0].device).zero_()
    tr.approximated += 1
    _taint(tr, out)
    return out
