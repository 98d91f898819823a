"""The operator table and its dispatch: the ``@op`` registry, operator
names and aliases, how a call reaches its handler, binds results and
checks them against eager PyTorch, and the helpers every family uses
(sizes, broadcasting, constants, conversions)."""

from __future__ import annotations

import numbers
import types
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from .._graph import (
    Dyn,
    Unsupported,
    Value,
    format_type,
    scalar_literal,
)
from .._scalars import DataScalar, contains_type, from_tensor, has_data, replace
from .. import _approximate
from .._sym import Expr, SymInt
from .._trace import NeedRetrace, Poisoned, Tracer, TracedSize, storage_ptr, user_frame
from .number_reads import value_as_number
from .writes import _from_outside, written_operands

Handler = Callable[..., Any]
HANDLERS: Dict[str, Handler] = {}

# Calls that only read metadata or are no-ops for a value-semantic graph.
PASSTHROUGH = {
    "dim", "ndimension", "is_contiguous", "is_floating_point", "is_complex",
    "element_size", "get_device", "type", "__format__", "__repr__",
    "__str__", "__hash__", "data_ptr", "stride",
    "storage_offset", "is_signed", "__reduce_ex__", "__setstate__",
    "_is_view", "requires_grad_", "has_names",
}
# Metadata that depends on a tensor's layout, not on its values.
_LAYOUT_READS = {"is_contiguous", "stride", "storage_offset", "_is_view",
                 "is_non_overlapping_and_dense", "data_ptr"}
GETTERS_PASSTHROUGH = {
    "dtype", "device", "requires_grad", "is_cuda", "ndim", "layout",
    "names", "grad", "is_leaf", "grad_fn", "is_sparse", "is_quantized",
    "is_meta", "is_mkldnn", "_base", "output_nr", "_version", "is_nested",
    "itemsize", "nbytes",
}


# Handlers that take SymInt arguments as symbolic sizes. Every other
# handler sees their values, each guarded (specialized) as int() would.
SYMBOLIC: set = set()
# Handlers that take numbers computed from tensor data (tgc._scalars) as
# scalar operands (through as_value); a call of any other handler with
# one is a graph break.
DATA_SCALARS: set = set()
# Operators traced through a Python composition for some arguments: name ->
# a function of the call's arguments returning the function whose body is
# traced instead of the operator (None: the operator's handler).
COMPOSITIONS: Dict[str, Callable] = {}


def op(*names: str, symbolic: bool = False):
    """Registers a handler for the operator names. ``symbolic``: it reads
    SymInt arguments itself (as sizes in the graph, through
    ``Tracer.dyn_for``); otherwise they arrive as guarded ints."""
    def register(fn: Handler) -> Handler:
        for n in names:
            HANDLERS[n] = fn
        if symbolic:
            SYMBOLIC.add(fn)
        return fn

    return register


def _is_sym(x) -> bool:
    return isinstance(x, (SymInt, DataScalar))


_SYM_TYPES = (SymInt, DataScalar)


def _has_sym(x) -> bool:
    """Whether `x` holds a SymInt or a DataScalar (a traced number whose
    eager value the real call takes: see _Concrete)."""
    return contains_type(x, _SYM_TYPES)


def _map_syms(x, fn):
    """`x` with every SymInt and DataScalar replaced by fn(it), in tuples,
    lists, dicts and slices (a traced shape becomes a plain tuple)."""
    def leaf(e) -> bool:
        return _is_sym(e) or isinstance(e, TracedSize)

    def mapped(e):
        if isinstance(e, TracedSize):
            return tuple(_map_syms(i, fn) for i in tuple.__iter__(e))
        return fn(e)

    return replace(x, leaf, mapped)


class _Concrete:
    """`func` called with the traced values of its SymInt arguments (the
    eager run that the trace records)."""

    def __init__(self, func):
        self.func = func

    def __call__(self, *args, **kwargs):
        hint = lambda s: s.hint  # noqa: E731
        return self.func(*_map_syms(args, hint), **_map_syms(kwargs, hint))


def specialize_syms(tr: Tracer, x, what: str, keep_data: bool = False):
    """`x` with each SymInt replaced by its value, guarded. A DataScalar
    (a number from tensor data) cannot be guarded: kept with `keep_data`,
    else Unsupported (the call becomes a graph break)."""
    def number(s):
        if isinstance(s, DataScalar):
            if keep_data:
                return s
            raise Unsupported(f"a number computed from tensor data ({s.kind.__name__}) is "
                              f"passed to {what.split(' to ', 1)[-1]}, which needs its value")
        tr.guard_value(s, what)
        return s.hint

    return _map_syms(x, number)


def func_name(func) -> str:
    """The operator name of a torch function, method or aten overload."""
    if isinstance(func, str):
        return func
    schema = getattr(func, "_schema", None)
    if schema is not None:  # torch.ops.aten.add.Tensor
        return "aten." + schema.name.split("::")[-1]
    name = getattr(func, "__name__", None)
    if name in ("__get__", "__set__"):  # a property of Tensor: x.shape, x.data = y
        owner = getattr(func, "__self__", None)
        return name[2:5] + "." + getattr(owner, "__name__", "?")
    if name is None:
        raise Unsupported(f"torch function {func!r}")
    return name


# Dunder and in-place spellings of the same operators.
_ALIASES = {
    "__add__": "add", "__radd__": "radd", "__iadd__": "add_",
    "__sub__": "sub", "__rsub__": "rsub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "rmul", "__imul__": "mul_",
    "__truediv__": "div", "__rtruediv__": "rdiv", "__itruediv__": "div_",
    "__div__": "div", "__rdiv__": "rdiv", "__floordiv__": "floor_divide",
    "__rfloordiv__": "rfloordiv", "__mod__": "remainder",
    "__pow__": "pow", "__rpow__": "rpow", "__matmul__": "matmul",
    "__rmatmul__": "rmatmul", "__neg__": "neg", "__abs__": "abs",
    "__and__": "logical_and_op", "__or__": "logical_or_op",
    "__invert__": "bitwise_not", "__lt__": "lt", "__le__": "le",
    "__gt__": "gt", "__ge__": "ge", "__eq__": "eq", "__ne__": "ne",
    "true_divide": "div", "multiply": "mul", "subtract": "sub",
    "divide": "div", "greater": "gt", "less": "lt", "greater_equal": "ge",
    "less_equal": "le", "not_equal": "ne", "clip": "clamp",
    "absolute": "abs", "negative": "neg", "arctan2": "atan2",
    "getitem": "__getitem__", "setitem": "__setitem__", "concatenate": "cat", "concat": "cat", "swapaxes": "transpose",
    "swapdims": "transpose", "moveaxis": "movedim",
}


def dispatch(tr: Tracer, func, args, kwargs, name: Optional[str] = None):
    """Runs `func` eagerly and records it. An unsupported call is recorded
    as an error (the trace goes on, so that one report lists them all) and
    its results are poisoned: what depends on them is not reported again."""
    name = name or func_name(func)
    if tr.tainted and _approximate.any_tainted(tr, (args, kwargs)):
        # An operand's values were not computed (tgc._approximate).
        return _approximate.tainted_call(tr, _dispatch_untainted, func, name, args, kwargs)
    return _dispatch_untainted(tr, func, args, kwargs, name)


def _dispatch_untainted(tr: Tracer, func, args, kwargs, name: str):
    sym = _has_sym(args) or _has_sym(kwargs)
    if sym:
        func = _Concrete(func)
    try:
        return _dispatch(tr, func, name, args, kwargs, sym)
    except Poisoned:  # raised before the call ran
        real = func(*args, **kwargs)
        if tr.breaks is not None and _has_tensor(real):
            return _unsupported(tr, real, _EAGER_OPERAND, call=(func, name, args, kwargs))
        _poison_outputs(tr, real)
        return real
    except Unsupported as e:  # raised before the call ran
        if e.fatal:
            raise
        return _unsupported(tr, func(*args, **kwargs), e.message, e.where,
                            call=(func, name, args, kwargs))


# Reading a tensor as a Python number; in an FX graph the first ones give a
# number that stays in the graph (the protocol methods must return a real
# int, float or bool).
_ITEM_FX = ("item", "aten.item", "_local_scalar_dense", "aten._local_scalar_dense",
            "aten.ScalarImplicit")
_ITEM = _ITEM_FX + ("__float__", "__int__", "__index__", "__bool__")

# Why a call whose operand an island computed eagerly is an island too.
_EAGER_OPERAND = ("an operand is only computed eagerly (a dtype TGC does not compile, or a "
                  "value TGC cannot follow, such as a view read after its base changed)")


def _has_tensor(x) -> bool:
    if isinstance(x, torch.Tensor):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has_tensor(e) for e in x)
    if isinstance(x, dict):
        return any(_has_tensor(e) for e in x.values())
    return False


def _poison_outputs(tr: Tracer, real) -> None:
    if isinstance(real, torch.Tensor):
        tr.poison(real)
    elif isinstance(real, (tuple, list)):
        for r in real:
            _poison_outputs(tr, r)


# Calls that make a tensor use other memory. Views made before of its old
# memory stop being its views, an alias of the new memory starts being
# one, and for an argument the caller's tensor changes: the tracer's model
# of memory (values, views, in-place updates) cannot follow that, and a
# graph break would change a copy, so the function is not compiled.
_REBINDS_MEMORY = ("set.data", "set_", "aten.set_")


# Arithmetic that PyTorch computes in its operands' promoted dtype also in
# place and with out=, converting only the result to the destination's.
_PROMOTING = frozenset({"add", "sub", "rsub", "mul", "div", "true_divide", "floor_divide",
                        "remainder", "fmod", "pow", "maximum", "minimum", "fmax", "fmin",
                        "atan2"})


def _computed_as(real, name: str, args, kwargs, into: bool):
    """What a handler takes for the result: `real`, or for an in-place or
    out= call of promoting arithmetic whose destination has another dtype
    than the operands' promoted one, an empty tensor of that dtype (its
    value is converted when assigned: u8.remainder_(i64) was computed in
    uint8 and f16.add_(f32) rounded its operands first)."""
    base = name.split(".")[-1].rstrip("_")
    if not into or not isinstance(real, torch.Tensor) or len(args) < 2 or \
            base not in _PROMOTING:
        return real
    try:
        promoted = torch.result_type(args[0], args[1])
    except (TypeError, RuntimeError):
        return real
    rounding = kwargs.get("rounding_mode", args[2] if len(args) > 2 else None)
    if not promoted.is_floating_point and (
            base in ("true_divide", "atan2") or (base == "div" and rounding is None)):
        promoted = torch.get_default_dtype()  # (integers divide as floats)
    return real if promoted == real.dtype else torch.empty_like(real, dtype=promoted)


def plain_attention(args, kwargs):
    """The arguments of a scaled_dot_product_attention call without its
    attn_mask where that mask lets every score through (a bool mask all
    True, an additive one all 0, not broadcasting the scores to a larger
    shape; of a dtype and device PyTorch takes with q's, is_causal off),
    else None. The same attention without a mask is the same result by
    PyTorch's definition, though PyTorch may pick another kernel for it,
    whose result can be laid out otherwise (the values are the same)."""
    q = args[0] if len(args) > 0 else kwargs.get("query")
    k = args[1] if len(args) > 1 else kwargs.get("key")
    positional = len(args) > 3
    mask = args[3] if positional else kwargs.get("attn_mask")
    causal = args[5] if len(args) > 5 else kwargs.get("is_causal", False)
    if not all(isinstance(t, torch.Tensor) for t in (q, k, mask)) or q.dim() < 2 or \
            causal is not False or mask.dtype not in (torch.bool, q.dtype) or \
            mask.device != q.device:
        # (PyTorch raises for these: the call keeps its mask and raises too)
        return None
    scores = tuple(q.shape[:-1]) + (k.shape[-2],)
    try:
        if tuple(torch.broadcast_shapes(mask.shape, scores)) != scores:
            return None
    except RuntimeError:
        return None
    if not bool(mask.all() if mask.dtype == torch.bool else (mask == 0).all()):
        return None
    if positional:
        return args[:3] + (None,) + tuple(args[4:]), kwargs
    return args, dict(kwargs, attn_mask=None)


def _eager_call(func, name: str, args, kwargs):
    """The eager call that gives a traced op's values. An attention on CUDA
    with a mask that lets everything through runs without it
    (plain_attention): a trace runs with torch.compiler.is_compiling() True
    (tgc._trace_patches), so Hugging Face models keep a padding mask they
    leave out in eager mode when it is all ones, and PyTorch's masked
    attention kernel, which eager never ran, was loaded in every new
    process (CUDA loads modules lazily): HF BERT-4's first call from the
    disk cache on the H200 112-115 -> 72-76 ms (its trace 103-105 -> 62-65).
    (A bool causal triangle run as is_causal=True did not move GPT-2's
    rows, and is not done.)"""
    if name.split(".")[-1] == "scaled_dot_product_attention":
        mask = args[3] if len(args) > 3 else kwargs.get("attn_mask")
        if isinstance(mask, torch.Tensor) and mask.is_cuda:
            plain = plain_attention(args, kwargs)
            if plain is not None:
                return func(*plain[0], **plain[1])
    return func(*args, **kwargs)


def _dispatch(tr: Tracer, func, name: str, args, kwargs, sym: bool):
    """`sym`: whether the arguments hold a SymInt or DataScalar."""
    script = getattr(func, "tgc_torchscript", None)
    if script is not None:  # (tgc._trace_patches._patch_script_calls)
        # (with symbolic sizes among the arguments `func` arrives wrapped in
        # _Concrete, and the generic path below makes the same island)
        return _unsupported(tr, func(*args, **kwargs),
                            f"TorchScript '{script}' (its operators run without the tracer)",
                            call=(func, f"torchscript_{script}".rstrip("_"), args, kwargs))
    if name in _REBINDS_MEMORY:
        spelled = "x.data = ..." if name == "set.data" else "Tensor.set_"
        raise Unsupported(
            f"{spelled} makes a tensor use other memory, which TGC cannot compile "
            "(its views and the caller's tensor would not follow); run this function "
            "eagerly or assign a new tensor instead", "%s:%d" % user_frame(), fatal=True)
    for t in written_operands(name, args, kwargs):
        if _from_outside(tr, t):
            # Checked before the call runs: the trace runs the function on
            # real tensors, and must not change the caller's (a failed
            # compile then runs it eagerly: the update would happen twice).
            label = tr.labels.get(id(t)) or "a parameter, buffer, global or closure tensor"
            raise Unsupported(
                f"{name.split('.')[-1]} updates {label} in place, a tensor from outside the "
                "function, which TGC does not compile (pass it as an argument to have it "
                "updated in place)", "%s:%d" % user_frame(), fatal=True)
    if name.startswith("get."):
        attr = name[4:]
        if attr == "shape":
            v = tr.value_of(args[0])
            return TracedSize(tr, v, func(*args, **kwargs))
        if attr in GETTERS_PASSTHROUGH:
            return func(*args, **kwargs)
        name = attr
    if name in ("size", "aten.sym_size", "aten.size"):
        return _size(tr, func, args, kwargs)
    if name in ("numel", "aten.sym_numel", "aten.numel"):
        v = tr.value_of(args[0])
        n = 1
        for d in range(v.rank):
            n = tr.sym_size(v, d) * n
        return n
    if name == "__len__":
        v = tr.value_of(args[0])
        if v.rank == 0:
            raise TypeError("len() of a 0-d tensor")
        tr.specialize(v.shape[0], "len()")
        return func(*args, **kwargs)
    if name in _ITEM and args and isinstance(args[0], torch.Tensor):
        # A one-element input read as a Python number (Dynamo lifts module
        # constants such as LayerNorm's eps this way): specialized on its
        # value, checked before the guards on every call, until the value
        # changes (tgc._scalars).
        arg = next((i for i, x in enumerate(tr.inputs) if x is args[0]), None)
        if arg is not None and args[0].numel() == 1 and id(args[0]) not in tr.mutated \
                and not (arg in tr.data_inputs and tr.fx_node is not None):
            value = func(*args, **kwargs)
            tr.value_specs.append((arg, value))
            return value
        if tr.fx_node is not None and name in _ITEM_FX:
            # In an FX graph, the number's uses are nodes: it stays in the
            # graph (a DataScalar).
            value = func(*args, **kwargs)
            try:
                return from_tensor(tr, args[0], value)
            except Poisoned:
                pass  # an eager value's number: data-dependent, below
    if name in ("nonzero", "unique", "argwhere", "masked_select") and \
            tr.breaks is not None:
        # A result whose size depends on the data: a graph break, its
        # sizes checked (and dynamic after they change) when it runs.
        return _unsupported(tr, func(*args, **kwargs),
                            f"Tensor.{name}: a result whose size depends on the data",
                            call=(func, name, args, kwargs))
    if name in ("__bool__", "item", "tolist", "__int__", "__float__",
                "__index__", "numpy", "nonzero", "equal",
                "allclose", "unique", "_local_scalar_dense"):
        tr.errors.append(
            f"data-dependent Python code (Tensor.{name}): TGC traces one graph "
            "and cannot guard on tensor values, at %s:%d" % user_frame()
        )
        return func(*args, **kwargs)
    if name in PASSTHROUGH:
        if name in _LAYOUT_READS:
            # The trace runs on dense copies of the call's tensors: calls
            # whose tensors are laid out otherwise run eagerly
            # (CompiledFunction._run).
            tr.layout_read = True
        if sym:
            # (a check of a number from tensor data is a graph break: it
            # runs eagerly with the call's number)
            specialize_syms(tr, (args, kwargs), f"size passed to {name}")
        return func(*args, **kwargs)
    name = _ALIASES.get(name, name)
    if value_as_number(tr, name, args, kwargs):
        # PyTorch reads the number itself (the tracer never sees it): the
        # graph would keep the traced value for every call.
        raise Unsupported(f"{name.split('.')[-1]} takes a number, size or constant from a tensor's "
                          "value (data, not a constant: a graph break)")
    composition = COMPOSITIONS.get(name)
    body = composition(*args, **kwargs) if composition is not None else None
    if body is not None:
        return _inline(tr, body, args, kwargs)
    if name.startswith("aten."):
        handler = HANDLERS.get(name) or HANDLERS.get(_ALIASES.get(name[5:], name[5:]))
    else:
        handler = HANDLERS.get(name)
    inplace = False
    if handler is None and name.split(".")[-1].startswith("_foreach_"):
        handler, inplace = _foreach_handler(name.split(".")[-1])
    if handler is None and name.endswith("_") and not name.startswith("_"):
        base = name[:-1]
        handler = HANDLERS.get(_ALIASES.get(base, base))
        if handler is None and base.startswith("aten."):
            handler = HANDLERS.get(base[5:])
        inplace = handler is not None
    if handler is not None and kwargs.get("inplace") is True and args and \
            isinstance(args[0], torch.Tensor):
        inplace = True  # F.relu(x, inplace=True): x holds the result
    if handler is None and _inlinable(func):
        # A function of PyTorch written in Python (F.multi_head_attention_forward):
        # its body is traced, as Dynamo inlines it.
        return _inline(tr, func, args, kwargs)
    if handler is None:
        if sym:
            # What the call returns may be computed from the values: they
            # are guarded (a handler that takes SymInts keeps them symbolic).
            specialize_syms(tr, (args, kwargs), f"size passed to {name}")
        real = func(*args, **kwargs)
        if not (_has_tensor(args) or _has_tensor(kwargs) or _has_tensor(real)):
            return real  # grad mode, autocast state, dtype queries...
        kind = "operator" if _has_tensor(args) or _has_tensor(kwargs) else "factory"
        return _unsupported(tr, real, f"torch {kind} '{name}'",
                            call=(func, name, args, kwargs))
    call = (func, name, args, kwargs)
    kwargs = dict(kwargs)
    out_arg = kwargs.pop("out", None)
    # Operands first: the results of an op on a poisoned operand are
    # poisoned too, without a new error.
    try:
        for a in list(args) + list(kwargs.values()):
            for t in (a if isinstance(a, (list, tuple)) else [a]):
                if isinstance(t, torch.Tensor):
                    tr.value_of(t)
        poisoned = False
    except Poisoned:
        poisoned = True
    if out_arg is not None:
        real = func(*args, out=out_arg, **kwargs)
    else:
        real = None
        if tr.approximate and not sym and not poisoned and name in _approximate.OPS:
            real = _approximate.call(tr, func, name, args, kwargs)
        if real is None:
            real = _eager_call(func, name, args, kwargs)
    if poisoned:
        if tr.breaks is not None:
            return _unsupported(tr, real, _EAGER_OPERAND, call=call)
        _poison_outputs(tr, real)
        return real
    tr.ops += 1
    # From here on the op has run (once): a failure to record it is
    # reported and its results poisoned, never a second eager run.
    try:
        if sym and handler not in SYMBOLIC:
            keep = handler in DATA_SCALARS
            args = specialize_syms(tr, args, f"size passed to {name}", keep)
            kwargs = specialize_syms(tr, kwargs, f"size passed to {name}", keep)
        elif sym and handler not in DATA_SCALARS and (has_data(args) or has_data(kwargs)):
            specialize_syms(tr, (args, kwargs), f"size passed to {name}")  # raises
        result = handler(tr, _computed_as(real, name, args, kwargs, inplace or out_arg is not None),
                         *args, **kwargs)
        if isinstance(result, Value) and not inplace and out_arg is None:
            _record_alias(tr, real, handler, args, kwargs)
        if inplace and isinstance(args[0], (list, tuple)):  # _foreach_op_
            for t, v in zip(args[0], result):
                _assign(tr, t, v)
            return real
        if inplace:
            result = _single(result)
            if result is not tr.value_of(args[0]):  # (dropout in eval: itself)
                _assign(tr, args[0], result)
            return args[0]
        if out_arg is not None:
            if isinstance(out_arg, torch.Tensor):
                _assign(tr, out_arg, _single(result))
                return out_arg
            for t, v in zip(out_arg, result):
                _assign(tr, t, v)
            return real
        return _bind_result(tr, real, result)
    except Poisoned:
        if tr.breaks is not None:
            return _unsupported(tr, real, _EAGER_OPERAND, call=call)
        _poison_outputs(tr, real)
        return real
    except TypeError as e:
        return _unsupported(tr, real, f"torch operator '{name}' with these arguments ({e})",
                            call=call)
    except Unsupported as e:
        if e.fatal:
            raise
        return _unsupported(tr, real, e.message, e.where, call=call)
    except NeedRetrace:
        raise
    except Exception as e:  # noqa: BLE001 - a bug of TGC's, never the user's crash
        return _unsupported(
            tr, real, f"internal error recording torch operator '{name}' "
            f"({type(e).__name__}: {e}); please report it", call=call)


# Python functions of PyTorch with no handler that are traced through
# (their bodies are torch calls the tracer handles), not compiled around.
# A list, not every Python function of torch.nn.functional: a body with a
# data-dependent check (`if (x < 0).any(): raise`) would stop the whole
# trace where a graph break keeps it going.
_INLINE = {("torch.nn.functional", "multi_head_attention_forward"),
           # (their rank checks and unbatched inputs, then feature_dropout)
           ("torch.nn.functional", "dropout1d"), ("torch.nn.functional", "dropout2d"),
           ("torch.nn.functional", "dropout3d"),
           # (a norm, clamp_min, expand_as and a division: Swin V2's attention)
           ("torch.nn.functional", "normalize")}
_NO_CHECK = {}  # function -> its copy whose torch-function check is off


def _inlinable(func) -> bool:
    return isinstance(func, types.FunctionType) and \
        (getattr(func, "__module__", None), func.__name__) in _INLINE


def _unchecked(func):
    """`func` with its entry check `if has_torch_function(...): return
    handle_torch_function(func, ...)` turned off (the mode would receive the
    same call again): the same code over globals where the three
    has_torch_function spellings answer False. The functions it calls keep
    their own globals, so their calls reach the tracer."""
    copy = _NO_CHECK.get(func)
    if copy is None:
        never = lambda *a, **k: False  # noqa: E731
        names = dict(func.__globals__, has_torch_function=never,
                     has_torch_function_unary=never, has_torch_function_variadic=never)
        copy = types.FunctionType(func.__code__, names, func.__name__, func.__defaults__,
                                  func.__closure__)
        copy.__kwdefaults__ = func.__kwdefaults__
        _NO_CHECK[func] = copy
    return copy


def _inline(tr: Tracer, func, args, kwargs):
    with tr:  # the mode again, for the body's calls
        return _unchecked(func)(*args, **kwargs)


def _unsupported(tr: Tracer, real, message: str, where: str = "", call=None):
    """Records an unsupported call that has run: with graph breaks
    allowed, an island (see tgc._breaks) when `call` (func, name, args,
    kwargs) can be one; else an error, its results poisoned."""
    if call is not None and tr.tainted and _approximate.any_tainted(tr, call[2:]):
        _approximate.exact(tr)  # (an island or error of values not computed)
    if not where:
        # The line, and the module running it (tgc._trace.Tracer.scope).
        where = "%s:%d" % user_frame()
        scope = tr.scope()
        if scope:
            where += f" in {scope}"
    if call is not None and tr.breaks is not None:
        from .._breaks import record_island

        func, name, args, kwargs = call
        try:
            return record_island(tr, func, name, args, kwargs, real, message, where)
        except Unsupported as e:
            message = f"{message} (and not a graph break: {e.message})"
    tr.errors.append(f"{message} at {where}")
    _poison_outputs(tr, real)
    return real


def _single(result):
    if isinstance(result, Value):
        return result
    raise Unsupported("an in-place or out= form of an operator with several results")


def _assign(tr: Tracer, t: torch.Tensor, v: Value) -> None:
    """`t` now holds `v` (out=, in-place)."""
    old = tr.value_of(t)
    if old.dtype != v.dtype:
        v = convert(tr, v, old.dtype)
    if old.rank != v.rank or any(
        isinstance(a, int) and isinstance(b, int) and a != b
        for a, b in zip(old.shape, v.shape)
    ):
        if not isinstance(v.shape, list) or old.concrete() != v.concrete():
            raise Unsupported("an out= tensor of a different shape (PyTorch resizes it)")
    view = tr.views.get(id(t)) if t._base is not None else None
    if view is not None and view[0] is t and view[3] is not None:
        # A slice, narrow or select of a traced tensor: the update is
        # written into its base (which recomputes this view from it).
        base = view[1]
        bv = tr.value_of(base)
        _assign(tr, base, view[3](bv, convert(tr, v, bv.dtype)))
        return
    if t._base is not None and not _sole_holder(tr, t):
        raise Unsupported("an in-place update of a view")
    arg = next(
        (i for i, x in enumerate(tr.inputs) if x is t), None
    )
    if arg is None and any(c is t for c in tr.captured + tr.captured_origs):
        raise Unsupported("an in-place update of a tensor from outside the function")
    if arg is None:
        # Another tensor object over an input's memory (x.data, x.detach()):
        # updating it updates the input. Before 2026-11-30 the update was
        # dropped (the input kept its old value, and so did the caller's).
        alias = _whole_alias_of_input(tr, t)
        if alias is not None:
            x = tr.inputs[alias]
            tr.mutated[id(x)] = alias
            tr.bind(x, v)
            refresh_aliases(tr, x)
            tr.bind(t, v)  # the alias holds the same memory, so the same value
            return
    if arg is not None:
        tr.mutated[id(t)] = arg
    tr.bind(t, v)
    refresh_aliases(tr, t)


def _sole_holder(tr: Tracer, t: torch.Tensor) -> bool:
    """Whether `t`, a view, is the only tensor the function can see of its
    memory: an operator's result that PyTorch returns as a view of a
    temporary of its own (F.linear of a 3-d input views its 2-d product, so
    `nn.ReLU(inplace=True)` after an `nn.Linear` updates a view). Updating
    it in place then changes nothing else the trace reads: it is rebound
    like any tensor. A view whose memory another traced, eager or poisoned
    tensor (an input, a parameter, a graph break's result) shares is not."""
    if not tr.produced(t):
        return False
    ptr = storage_ptr(t)
    if not ptr or any(a is not t for a in tr.sharing_memory(ptr)):
        return False
    others = [e[0] for e in tr.eager.values()] + list(tr.poisoned.values()) + \
        list(tr.inputs) + tr.captured + tr.captured_origs
    return not any(isinstance(o, torch.Tensor) and o is not t and storage_ptr(o) == ptr
                   for o in others)


def _whole_alias_of_input(tr: Tracer, t: torch.Tensor) -> Optional[int]:
    """The input whose memory `t` views whole (same storage, offset, sizes,
    strides and dtype), where `t` is another object; else None. An alias
    over part of an input raises Unsupported."""
    ptr = storage_ptr(t)
    if not ptr:
        return None
    for i, x in enumerate(tr.inputs):
        if isinstance(x, torch.Tensor) and storage_ptr(x) == ptr:
            if (x.shape, x.stride(), x.storage_offset(), x.dtype) == \
                    (t.shape, t.stride(), t.storage_offset(), t.dtype):
                return i
            raise Unsupported("an in-place update of part of an input through a tensor "
                              "TGC did not see made from it")
    return None


def _record_alias(tr: Tracer, real, handler, args, kwargs) -> None:
    """A result that is a view of an argument (transpose, view, expand,
    ...): recomputed by its handler when that argument is updated in place
    later (refresh_aliases). Slices, narrows and selects record themselves,
    with how to write an update of the view into its base."""
    if not isinstance(real, torch.Tensor) or real._base is None:
        return
    entry = tr.views.get(id(real))
    if entry is not None and entry[0] is real:
        return
    ptr = storage_ptr(real)
    base = next((a for a in args if isinstance(a, torch.Tensor) and ptr != 0
                 and storage_ptr(a) == ptr), None)
    if base is not None:
        tr.views[id(real)] = (real, base, lambda: handler(tr, real, *args, **kwargs), None)




def refresh_aliases(tr: Tracer, t: torch.Tensor) -> None:
    """`t` was updated in place: every other traced tensor sharing its
    memory holds a stale value. A slice, narrow or select of `t` (recorded
    in Tracer.views) is recomputed from t's new value, and so on down its
    own views; any other alias is poisoned, so that a later read of it is
    reported (or a graph break), never the old value."""
    tr.reindex(t)
    ptr = storage_ptr(t)
    if ptr == 0:
        return
    fresh = {id(t)}
    pending = [t]
    while pending:
        base = pending.pop()
        for a in tr.sharing_memory(ptr):
            if id(a) in fresh:
                continue
            view = tr.views.get(id(a))
            if view is not None and view[0] is a and view[1] is base:
                try:
                    value = view[2]()  # the view's op again, on base's new value
                except (Unsupported, Poisoned, TypeError):
                    continue
                tr.bind(a, value)
                fresh.add(id(a))
                pending.append(a)
    for a in tr.sharing_memory(ptr):
        if id(a) not in fresh:
            del tr.values[id(a)]
            tr.poison(a)
            tr.stale[id(a)] = a


def _foreach_handler(name: str):
    """(handler, in place) of `_foreach_<op>[_]`: the op's handler applied
    per element of the tensor lists (a list argument, tensors or numbers,
    gives each element its own item; anything else is shared), or
    (None, False) where the op has no handler. An in-place form's results
    are assigned to the first list's tensors by the caller; every element
    is computed from the values before the call, as CUDA's multi-tensor
    kernels read them."""
    inplace = name.endswith("_")
    op = name[len("_foreach_"):].rstrip("_")
    base = HANDLERS.get(_ALIASES.get(op, op))
    if base is None:
        return None, False

    def handler(tr, real, *args, **kwargs):
        if not args or not isinstance(args[0], (list, tuple)):
            raise Unsupported(f"{name} without a list of tensors first")
        firsts = args[0]
        scalars = None
        if op in ("addcmul", "addcdiv"):
            # Its value: a number, a list of numbers, or a 1-d tensor of
            # one number per element (the Tensor overload, from an
            # optimizer step under torch.compile), the fourth argument.
            args, kwargs = list(args), dict(kwargs)
            if len(args) > 3:
                scalars = args.pop(3)
            else:
                scalars = kwargs.pop("scalars", kwargs.pop("value", None))
            if isinstance(scalars, torch.Tensor) and (
                    scalars.dim() != 1 or scalars.shape[0] != len(firsts)):
                raise Unsupported(f"{name} with scalars of shape {tuple(scalars.shape)} for "
                                  f"{len(firsts)} tensors")
        out = []
        for i in range(len(firsts)):
            pick = (lambda a: a[i] if isinstance(a, (list, tuple)) else a)  # noqa: E731
            # The eager result of element i (in place: the updated tensor).
            r = firsts[i] if real is None else real[i]
            kw = {k: pick(v) for k, v in kwargs.items()}
            if isinstance(scalars, torch.Tensor):
                from .shapes import _select

                kw["value"] = _select(tr, tr.value_of(scalars), 0, i)
            elif scalars is not None:
                kw["value"] = pick(scalars)
            out.append(base(tr, r, *[pick(a) for a in args], **kw))
        return out

    return handler, inplace


def _bind_result(tr: Tracer, real, result):
    if isinstance(result, Value):
        if not isinstance(real, torch.Tensor):
            raise Unsupported("an operator that returns a non-tensor")
        _check(real, result)
        tr.bind(real, result)
        return real
    if isinstance(result, (tuple, list)) and isinstance(real, (tuple, list)):
        for t, v in zip(real, result):
            if isinstance(v, Value):
                _check(t, v)
                tr.bind(t, v)
            elif isinstance(t, torch.Tensor):
                tr.poison(t)  # a result TGC does not compute
        return real
    _poison_outputs(tr, real)
    return real


def _check(real: torch.Tensor, v: Value) -> None:
    if list(real.shape) != v.concrete() or real.dtype != v.dtype:
        raise AssertionError(
            f"internal error: recorded {v.type} {v.concrete()} but PyTorch "
            f"computed {tuple(real.shape)} {real.dtype}"
        )


# --- helpers -----------------------------------------------------------------


def merge_dims(sizes: Sequence[Any], value: int):
    """Sizes that must be equal (or broadcast): static wins, else the one
    symbol, else a new dynamic size."""
    static = [s for s in sizes if isinstance(s, int) and s != 1]
    if static:
        return static[0]
    dyns = [s for s in sizes if isinstance(s, Dyn)]
    if not dyns:
        return 1
    if all(d is dyns[0] for d in dyns):
        return dyns[0]
    # The sizes are equal where the result is used (a `?` that is 1 at run
    # time fails the broadcast's guard): any one's expression computes it.
    expr = next((d.expr for d in dyns if d.expr is not None), None)
    return Dyn(frozenset().union(*(d.sources for d in dyns)), value, expr)


def broadcast(shapes: Sequence[Sequence[Any]], real: Sequence[int]) -> List[Any]:
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        column = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        out.append(merge_dims(column, real[i]))
    return out


def derived(sizes: Sequence[Any], value: int, expr=None):
    """A size computed from `sizes` (static when they all are); `expr`: how,
    from the input sizes, when known."""
    dyns = [s for s in sizes if isinstance(s, Dyn)]
    if not dyns:
        return int(value)
    return Dyn(frozenset().union(*(d.sources for d in dyns)), value, expr)


def expr_of(size) -> Optional[Expr]:
    """The expression of a graph size (None for a dynamic size the graph
    does not know as a function of the input sizes)."""
    if isinstance(size, Dyn):
        return size.expr
    return Expr.const(int(size))


def _fold_exprs(sizes: Sequence[Any], product: bool) -> Optional[Expr]:
    out = Expr.const(1 if product else 0)
    for s in sizes:
        e = expr_of(s)
        if e is None:
            return None
        out = out * e if product else out + e
    return out


def product_expr(sizes: Sequence[Any]) -> Optional[Expr]:
    """The product of graph sizes as an expression (None if one is unknown)."""
    return _fold_exprs(sizes, True)


def sum_expr(sizes: Sequence[Any]) -> Optional[Expr]:
    """The sum of graph sizes as an expression (None if one is unknown)."""
    return _fold_exprs(sizes, False)


def norm_dim(d: int, rank: int) -> int:
    if d < -max(rank, 1) or d >= max(rank, 1):
        raise IndexError(f"dim {d} out of range for rank {rank}")
    return d + rank if d < 0 else d


def constant(tr: Tracer, value, dtype: torch.dtype) -> Value:
    t = format_type(dtype, [])
    return tr.graph.emit(
        f"tgc.constant dense<{scalar_literal(value, dtype)}> : {t}", [(dtype, [])]
    )[0]


def convert(tr: Tracer, v: Value, dtype: torch.dtype) -> Value:
    if v.dtype == dtype:
        return v
    out = format_type(dtype, v.shape)
    return tr.graph.emit(
        f"tgc.convert {v.name} : {v.type} -> {out}", [(dtype, v.shape)], tr.loc()
    )[0]


def as_value(tr: Tracer, x, dtype: torch.dtype) -> Value:
    """A tensor operand in `dtype`; Python scalars become constants and
    symbolic sizes values computed in the graph (handlers registered with
    symbolic=True receive them)."""
    if isinstance(x, torch.Tensor):
        return convert(tr, tr.value_of(x), dtype)
    if isinstance(x, SymInt):
        return convert(tr, sym_tensor(tr, x.expr), dtype)
    if isinstance(x, DataScalar):
        return convert(tr, x.v, dtype)
    if isinstance(x, (bool, numbers.Number)):
        return constant(tr, x, dtype)
    raise Unsupported(f"an operand of type {type(x).__name__}")


def sym_tensor(tr: Tracer, expr) -> Value:
    """A size expression as a 0-d i64 tensor computed in the graph from the
    input sizes (`x * S` with S = x.shape[1] keeps S symbolic). A size
    becomes data as the sum of that many ones (no op reads an index into
    a tensor: issue 19's note); `//` and `%` are floor division and
    Python's modulo on those values."""
    c = expr.constant()
    if c is not None:
        return constant(tr, c, torch.int64)
    cache = tr.__dict__.setdefault("_size_values", {})
    if expr in cache:
        return cache[expr]
    i64 = torch.int64
    total = None
    for mono, coeff in expr.terms:
        term = None
        for atom in mono:
            if atom[0] in ("s", "d"):
                n = tr._atom_index(atom)
                hint = tr.hint_size(atom[1], atom[2]) if atom[0] == "s" else \
                    tr.opaque_values[atom[1]].concrete()[atom[2]]
                from .reductions import sum_value

                ones = tr.graph.emit(f"tgc.full 1 : i64 [{n}] : tensor<?xi64>",
                                     [(i64, [Dyn(set(), hint)])], tr.loc())[0]
                a = sum_value(tr, ones, [0], i64)
            else:
                num, den = sym_tensor(tr, atom[1]), sym_tensor(tr, atom[2])
                a = _i64(tr, "div", num, den, " rounding = floor")
                if atom[0] == "%":
                    a = _i64(tr, "sub", num, _i64(tr, "mul", a, den))
            term = a if term is None else _i64(tr, "mul", term, a)
        if term is None:
            term = constant(tr, coeff, i64)
        elif coeff != 1:
            term = _i64(tr, "mul", term, constant(tr, coeff, i64))
        total = term if total is None else _i64(tr, "add", total, term)
    cache[expr] = total
    return total


def _i64(tr: Tracer, mnemonic: str, a: Value, b: Value, extra: str = "") -> Value:
    t = "tensor<i64>"
    return tr.graph.emit(f"tgc.{mnemonic} {a.name}, {b.name}{extra} : {t}, {t} -> {t}",
                         [(torch.int64, [])], tr.loc())[0]


def tval(tr: Tracer, x) -> Value:
    if not isinstance(x, torch.Tensor):
        raise Unsupported(f"expected a tensor, got {type(x).__name__}")
    return tr.value_of(x)


def _size(tr: Tracer, func, args, kwargs):
    v = tr.value_of(args[0])
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    real = func(*args, **kwargs)
    if dim is None:
        return TracedSize(tr, v, real)
    return tr.sym_size(v, norm_dim(dim, v.rank))


def _arg(args, kwargs, index: int, name: str, default=None):
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)
