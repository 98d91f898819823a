"""Training through ``tgc.compile``: compiled forward and backward graphs
under PyTorch's autograd (docs/training.md).

A call needs this path when grad mode is on and a tensor the function
reads requires grad: an argument, or a parameter of the compiled module
(or of a module the compiled function reaches through its closure or its
globals). Otherwise the inference path runs, as fast as before: its
specializations never serve such a call (the native path checks grad mode
and ``requires_grad`` too).

Per specialization (argument structure; each tensor's shape, dtype,
device and ``requires_grad``; the Python values the trace read):

1. **Joint trace.** The function, with every parameter and buffer lifted
   to an input (``_reparametrize_module``, as ``functional_call``), and its
   vector-Jacobian product (``torch.autograd.grad``) are traced to one
   aten-level FX graph with ``make_fx``, then traced again through
   functionalization with TGC's decomposition table (``_decompositions``):
   in-place updates (BatchNorm's running statistics) become outputs.
2. **Partition** (``tgc._partition``): the forward graph computes the
   outputs, the new values of mutated inputs and what the backward needs;
   the backward graph takes those and the output gradients.
3. Both graphs are compiled by TGC like any FX graph (``tgc.fx``): guards,
   graph breaks for unsupported ops, CPU or GPU code. The backward compiles
   on the first ``backward()``.
4. A ``torch.autograd.Function`` runs them; mutated buffers are written
   back after the forward.

This is AOTAutograd's design (functorch's ``aot_function`` in PyTorch
1.13), done here so that it works the same on PyTorch 1.13 and 2.x.
"""

from __future__ import annotations

import contextlib
import functools
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

import torch
import torch.fx

from . import _state, _tracing
from ._partition import partition, rebuild_saved, shape_key, share_saved, tensor_meta
from ._symbolic import (Session, SizeEmitter, SymbolicUnsupported, dims_text, is_symbolic,
                        mask_key, symbolic_placeholders)
from ._symbolic import available as symbolic_available
from ._graph import Unsupported



def _functionalize(fn):
    try:  # PyTorch 2.x
        from torch.func import functionalize
    except ImportError:  # PyTorch 1.13
        from functorch.experimental import functionalize
    return functionalize(fn)


def make_fx(fn, decompositions=None, tracing_mode="real"):
    from torch.fx.experimental.proxy_tensor import make_fx as make

    if tracing_mode == "real":
        return make(fn, decompositions)
    return make(fn, decompositions, tracing_mode=tracing_mode)


def _reparametrize_module(module, tensors):
    from torch.nn.utils.stateless import _reparametrize_module as reparametrize

    return reparametrize(module, tensors)


def _autocast_text(state) -> str:
    """`_state.autocast_state()` in words: "off" or "cpu bfloat16"."""
    if state is None:
        return "off"
    return ", ".join(f"{d} {str(dt).replace('torch.', '')}" for d, on, dt in state if on)


def needs_grad(tensors) -> bool:
    """Grad mode is on and one of `tensors` requires grad."""
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


# --- the modules whose state is lifted ------------------------------------------


def reachable_modules(fn) -> List[torch.nn.Module]:
    """The compiled module, the owner of a compiled bound method, or the
    modules the function's closure cells and globals hold (what ``model``
    means in ``tgc.compile(lambda x: model(x))``)."""
    if isinstance(fn, torch.nn.Module):
        return [fn]
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, torch.nn.Module):
        return [owner]
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    found: List[torch.nn.Module] = []
    for cell in getattr(func, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, torch.nn.Module):
            found.append(value)
    globs = getattr(func, "__globals__", {})
    for name in code.co_names:
        value = globs.get(name)
        if isinstance(value, torch.nn.Module):
            found.append(value)
    unique: Dict[int, torch.nn.Module] = {}
    for m in found:
        unique.setdefault(id(m), m)
    return list(unique.values())


@dataclass
class State:
    """Parameters and buffers of the reachable modules, each tensor once.
    `uses[i]` lists (module index, qualified name) of every place tensor i
    is held (tied weights are one tensor under two names)."""

    modules: List[torch.nn.Module]
    tensors: List[torch.Tensor] = field(default_factory=list)
    names: List[str] = field(default_factory=list)
    is_buffer: List[bool] = field(default_factory=list)
    uses: List[List[Tuple[int, str]]] = field(default_factory=list)
    # (dict, key, object) along the path to every tensor: all still hold
    # while the modules hold the same tensors (tgc._state.CapturedTensors).
    links: List[Tuple[dict, str, Any]] = field(default_factory=list)

    @staticmethod
    def of(modules: List[torch.nn.Module]) -> "State":
        s = State(modules)
        index: Dict[int, int] = {}
        for mi, root in enumerate(modules):
            for prefix, m in root.named_modules(remove_duplicate=False):
                for kind in ("_parameters", "_buffers"):
                    for name, t in m.__dict__.get(kind, {}).items():
                        if t is None:
                            continue
                        qual = prefix + "." + name if prefix else name
                        i = index.get(id(t))
                        if i is None:
                            i = index[id(t)] = len(s.tensors)
                            s.tensors.append(t)
                            s.names.append(qual if len(modules) == 1 else f"{mi}:{qual}")
                            s.is_buffer.append(kind == "_buffers")
                            s.uses.append([])
                        s.uses[i].append((mi, qual))
        # Each (dict, key) once: the modules on the path of every
        # parameter of a layer were checked once per parameter (1166 links
        # per call for a 12-layer model's 147 parameters).
        seen: Set[Tuple[int, str]] = set()
        for (mi, qual), t in zip((u[0] for u in s.uses), s.tensors):
            for link in _state._resolve(modules[mi], qual)[1]:
                if (id(link[0]), link[1]) not in seen:
                    seen.add((id(link[0]), link[1]))
                    s.links.append(link)
        return s

    def current(self) -> bool:
        return all(d.get(k) is obj for d, k, obj in self.links)

    def requires_grad(self) -> bool:
        return any(t.requires_grad for t in self.tensors)

    @contextlib.contextmanager
    def replaced(self, tensors):
        """The modules hold `tensors` instead of their own while active."""
        per_module: List[Dict[str, torch.Tensor]] = [{} for _ in self.modules]
        for t, uses in zip(tensors, self.uses):
            for mi, qual in uses:
                per_module[mi][qual] = t
        with contextlib.ExitStack() as stack:
            for m, d in zip(self.modules, per_module):
                if d:
                    stack.enter_context(_reparametrize_module(m, d))
            yield


# --- decompositions --------------------------------------------------------------

aten = torch.ops.aten

# Backward (and a few forward) ops TGC compiles from their decomposition
# into primitive aten ops (elementwise, reductions, matmuls), which then
# fuse with their neighbours. threshold_backward and leaky_relu_backward
# are TGC handlers themselves.
_DECOMPOSED = [
    # log_softmax in primitives: the backward recomputes it from its input
    # and the row statistics (tgc._partition) instead of reading a saved
    # [rows, classes] result, and a loss's gather reads the one element
    # per row it needs (tgc-sink-gathers).
    "_log_softmax",
    "native_layer_norm_backward", "_softmax_backward_data", "_log_softmax_backward_data",
    "gelu_backward", "tanh_backward", "sigmoid_backward", "silu_backward",
    "hardtanh_backward", "hardswish_backward", "hardsigmoid_backward", "elu_backward",
    "softplus_backward", "mish_backward", "log_sigmoid_backward", "logit_backward",
    "native_batch_norm_backward", "native_group_norm_backward",
    "slice_backward", "select_backward", "diagonal_backward",
    "native_dropout_backward", "mse_loss_backward", "huber_loss_backward",
    "binary_cross_entropy_backward", "soft_margin_loss_backward", "glu_backward",
    "prelu_backward", "_adaptive_avg_pool2d_backward", "avg_pool2d_backward",
    "embedding_dense_backward", "native_batch_norm", "_native_batch_norm_legit_functional",
    # Batch norm as PyTorch 2.x's CUDA dispatch reaches it (cuDNN's and
    # MIOpen's kernels, the update / no-update pair and their backward):
    # without these, every batch norm of a CNN was an eager island on the
    # GPU. Their decompositions lead to native_batch_norm(_backward) above.
    "cudnn_batch_norm", "cudnn_batch_norm_backward", "miopen_batch_norm",
    "miopen_batch_norm_backward", "_batch_norm_with_update",
    "_batch_norm_with_update_functional", "_batch_norm_no_update", "batch_norm_backward",
]


def _nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    """nll_loss's gradient with a one-hot mask instead of a scatter (an
    elementwise kernel that fuses with log_softmax's backward)."""
    dim = 0 if self.dim() < 2 else 1
    classes = self.shape[dim]
    shape = [1] * self.dim()
    shape[dim] = classes
    ids = torch.arange(classes, device=self.device).view(shape)
    tgt = target.unsqueeze(dim)
    hit = (ids == tgt) & (tgt != ignore_index)
    scale = -grad_output
    if reduction == 1:  # mean
        scale = scale / total_weight
    if reduction == 0 and self.dim() >= 2:  # none: one gradient per sample
        scale = scale.unsqueeze(dim)
    grad = torch.where(hit, scale, torch.zeros((), dtype=self.dtype, device=self.device))
    if weight is not None:
        grad = grad * weight.view(shape)
    return grad.to(self.dtype)


def _elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """ATen's elu_backward (ELU, SELU, CELU): PyTorch 1.13's decomposition
    returned `self_or_result * scale` where the input was positive when the
    op ran in place (is_result), not `grad_output * scale`: nn.ELU(inplace=
    True) trained with wrong gradients (found by a helper's sweep)."""
    neg_coef, pos_coef, neg_input_coef = alpha * scale, scale, input_scale
    x = self_or_result
    if is_result:
        negative = grad_output * neg_input_coef * (x + neg_coef)
    else:
        negative = grad_output * neg_input_coef * neg_coef * torch.exp(x * neg_input_coef)
    return torch.where(x <= 0, negative, grad_output * pos_coef)


@functools.lru_cache(maxsize=None)
def decompositions() -> Dict[Any, Any]:
    """(built once per process; callers must not change it)"""
    from torch._decomp import get_decompositions

    ops = [getattr(aten, n) for n in _DECOMPOSED if hasattr(aten, n)]
    table = dict(get_decompositions(ops))
    for overload in ("default", "grad_input"):
        op = getattr(aten.nll_loss_backward, overload, None)
        if op is not None and overload == "default":
            table[op] = _nll_loss_backward
    table[aten.elu_backward.default] = _elu_backward
    return table


# --- outputs ------------------------------------------------------------------------

_TENSOR = object()


def flatten_output(out) -> Tuple[List[torch.Tensor], Any]:
    """The tensors of a function's result and its structure (what
    tgc._trees.rebuild takes: tuples, lists, namedtuples, dicts and their
    subclasses such as HF's ModelOutput, dataclasses, and objects of tensors
    such as HF's caches), with the other values as constants."""
    import dataclasses
    import enum

    tensors: List[torch.Tensor] = []
    leaves: List[Tuple[Any, Any]] = []
    on_path = set()

    def leaf(kind, value):
        leaves.append((kind, value))
        return ("leaf", len(leaves) - 1)

    def walk(o):
        if isinstance(o, torch.Tensor):
            tensors.append(o)
            return leaf(_TENSOR, len(tensors) - 1)
        if o is None or isinstance(o, (int, float, bool, str, torch.dtype, torch.device,
                                       enum.Enum, type, torch.Size)):
            return leaf(None, o)
        if dataclasses.is_dataclass(o) and not isinstance(o, (type, dict)):
            fields = [f.name for f in dataclasses.fields(o) if f.init]
            return ("dataclass", type(o), {n: walk(getattr(o, n)) for n in fields})
        if isinstance(o, (tuple, list)):
            return (type(o), [walk(e) for e in o])
        if isinstance(o, dict):
            return (type(o), {k: walk(e) for k, e in o.items()})
        if hasattr(o, "__dict__") and not isinstance(o, torch.nn.Module) and \
                not callable(o) and id(o) not in on_path:
            on_path.add(id(o))
            state = {k: walk(v) for k, v in vars(o).items()}
            on_path.discard(id(o))
            return ("object", type(o), state)
        raise Unsupported(f"an output of type {type(o).__name__}")

    tree = walk(out)
    return tensors, (tree, leaves)


def rebuild_output(structure, tensors: List[torch.Tensor]):
    from ._trees import rebuild

    tree, leaves = structure
    return rebuild(tree, [tensors[v] if k is _TENSOR else v for k, v in leaves])


# --- one training specialization ------------------------------------------------


class Eager(Exception):
    """The call cannot be compiled for training; it runs eagerly."""


@dataclass
class TrainingSpec:
    key: Any
    value_guards: List[_state.ValueGuard]
    forward: Any  # CompiledFunction of the forward graph
    backward_graph: torch.fx.GraphModule
    make_backward: Any
    out_key: Any  # the output structure (flatten_output)
    differentiable: List[bool]  # per output tensor
    mutated: List[int]  # flat inputs whose new values the forward returns
    num_saved: int
    trace_ms: float
    backward: Any = None  # the last backward() ran this (of `backwards`)
    # The compiled backwards, by the indices of the differentiable outputs
    # whose gradients were None (without_tangents), compiled on first use.
    backwards: Dict[Tuple[int, ...], Any] = field(default_factory=dict)
    # Per flat input, the tangents (indices among the differentiable
    # outputs) its gradient depends on: when none of them reaches the
    # backward (outputs the loss does not use), the gradient is None, as
    # eager's, not zeros (an optimizer skips None, not zeros).
    grad_deps: Optional[List[Set[int]]] = None
    hits: int = 0
    function: Any = None  # the autograd.Function subclass
    # Where the forward's random ops (dropout) take their seed from: the
    # device of a 0-d int64 tensor drawn per call from PyTorch's generator
    # and passed after the flat inputs (fx.SEED_INPUT); None without them.
    seed_device: Optional[torch.device] = None
    # Saved tensors an output already holds (tgc._partition.share_saved):
    # not returned twice by the forward, rebuilt from the output.
    shared_saved: List[Tuple[int, int, Optional[Tuple[int, ...]]]] = field(default_factory=list)
    # A dynamic specialization (tgc._symbolic): per flat input, its dims
    # traced as symbols; the key with those sizes masked, and the guards
    # the trace recorded on them. None: traced for the key's sizes.
    dynamic: Optional[Dict[int, Set[int]]] = None
    masked_key: Any = None
    size_guards: Any = None
    # The dims the dynamic trace was asked for but made static (where).
    made_static: List[str] = field(default_factory=list)

    def serves(self, key, flat) -> bool:
        """Whether this specialization was traced for the call's key (its
        dynamic sizes aside, when they pass the trace's guards)."""
        if self.dynamic is None:
            return self.key == key
        return self.masked_key == mask_key(key, self.dynamic) and self.size_guards.hold(flat)

    def forward_inputs(self, flat) -> List[torch.Tensor]:
        if self.seed_device is None:
            return list(flat)
        seed = torch.randint(0, 2**62, (), dtype=torch.int64, device=self.seed_device)
        return list(flat) + [seed]

    def holds(self) -> Optional[str]:
        return next((m for m in (g.check() for g in self.value_guards) if m), None)


def _tangent_dependencies(bw: torch.fx.GraphModule, num_saved: int,
                          num_tangents: int) -> Optional[List[Set[int]]]:
    """Per output of the backward graph (a flat input's gradient), the
    tangent placeholders it reads (indices), or None when the graph's
    outputs are not a flat list."""
    placeholders = [n for n in bw.graph.nodes if n.op == "placeholder"]
    tangent_of = {n: i for i, n in enumerate(placeholders[num_saved:num_saved + num_tangents])}
    output = next(n for n in bw.graph.nodes if n.op == "output")
    results = output.args[0]
    if not isinstance(results, (list, tuple)):
        return None
    # In graph order (inputs before their users): each node's tangents are
    # the union of its inputs'.
    deps: Dict[Any, frozenset] = {}
    for n in bw.graph.nodes:
        if n in tangent_of:
            deps[n] = frozenset((tangent_of[n],))
        else:
            deps[n] = frozenset().union(*(deps.get(i, frozenset()) for i in n.all_input_nodes))
    return [set(deps.get(r, ())) if isinstance(r, torch.fx.Node) else set() for r in results]


def without_tangents(bw: torch.fx.GraphModule, num_saved: int, missing: Tuple[int, ...],
                     metas) -> torch.fx.GraphModule:
    """A copy of the backward graph for calls whose tangents `missing`
    (indices among the tangents) are None: each is zeros of its output's
    (shape, dtype, device) in `metas`, and a gradient added to it is the
    gradient itself, as in eager autograd, which adds nothing for an
    output the loss does not use. Passing zeros instead cost GPT-2's step
    a fill and an add over its [4096, 50257] logits (0.8 ms on the H200)."""
    # A copy of the nodes (their metadata shared, not copied).
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(bw.graph, {}))
    gm = torch.fx.GraphModule(bw, graph)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    present = [p for i, p in enumerate(placeholders) if i - num_saved not in missing]
    for i in missing:
        p = placeholders[num_saved + i]
        shape, dtype, device = metas[i]
        # A dynamic trace's tangent has symbolic sizes (its example's are
        # not this call's): the zeros take them from the other inputs.
        val = p.meta.get("val")
        exact = shape_key(p)
        want = (exact if exact is not None else tuple(shape), dtype)
        for user in list(p.users):
            if user.op == "call_function" and user.target is torch.ops.aten.add.Tensor and \
                    len(user.args) == 2 and not user.kwargs:
                other = user.args[1] if user.args[0] is p else user.args[0]
                if isinstance(other, torch.fx.Node) and other is not p and \
                        _exact_meta(other) == _exact_meta(user) == want:
                    user.replace_all_uses_with(other)
                    gm.graph.erase_node(user)
        if p.users:
            anchor = next(n for n in gm.graph.nodes if n.op != "placeholder")
            with gm.graph.inserting_before(anchor):
                size = list(shape)
                if isinstance(val, torch.Tensor) and any(is_symbolic(d) for d in val.shape):
                    emitter = SizeEmitter(gm.graph, present)
                    size = [emitter.emit(d) for d in val.shape]
                zeros = gm.graph.call_function(torch.ops.aten.zeros.default, (size,),
                                               {"dtype": dtype, "device": device})
            zeros.meta = dict(p.meta)
            p.replace_all_uses_with(zeros)
        gm.graph.erase_node(p)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    return gm


def _exact_meta(node: torch.fx.Node):
    """(exact shape, dtype) of a node's tensor (tgc._partition.shape_key)."""
    meta = tensor_meta(node)
    return None if meta is None else (shape_key(node), meta[1])


def _meta(t: torch.Tensor):
    return (tuple(t.shape), t.dtype, t.device, t.requires_grad, t.layout)


def _write_back(inputs: List[torch.Tensor], values: List[torch.Tensor]) -> None:
    """The mutated inputs' new values written into them (a BatchNorm's
    running statistics and counter): one torch._foreach_copy_ where
    PyTorch has it (2.x; on CUDA a multi-tensor kernel per dtype instead of
    a copy_ call and launch each: 60 per ResNet-18 step, about 0.4 ms of
    host time), a copy_ each otherwise."""
    with torch.no_grad():
        foreach = getattr(torch, "_foreach_copy_", None)
        if foreach is not None and len(inputs) > 1:
            foreach(inputs, values)
            return
        for dst, value in zip(inputs, values):
            dst.copy_(value)


def _make_function(spec: TrainingSpec, name: str = "the compiled function"):
    spec_name = [name]

    class CompiledTraining(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *flat):
            # Unused outputs' gradients arrive as None (see grad_deps).
            ctx.set_materialize_grads(False)
            outs = spec.forward(*spec.forward_inputs(flat))
            outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
            n = len(spec.differentiable)
            m = len(spec.mutated)
            user, new_state, saved = outs[:n], outs[n:n + m], outs[n + m:]
            if spec.shared_saved:
                saved = rebuild_saved(spec.shared_saved, user, saved)
            ctx.save_for_backward(*saved)
            ctx.out_meta = [(o.shape, o.dtype, o.device)
                            for o, d in zip(user, spec.differentiable) if d]
            fixed = [o for o, d in zip(user, spec.differentiable) if not d] + list(new_state)
            if fixed:
                ctx.mark_non_differentiable(*fixed)
            return tuple(user) + tuple(new_state)

        @staticmethod
        def backward(ctx, *grads):
            # The compiled backward is not itself differentiable (its saved
            # tensors are not connected to the inputs): with create_graph
            # (a double backward, a gradient penalty) the gradient of the
            # gradient missed its second-order terms, silently.
            if torch.is_grad_enabled():
                raise RuntimeError(
                    f"tgc.compile: {spec_name[0]}: a backward with create_graph=True "
                    f"(double backward) is not supported: the compiled backward is not "
                    f"differentiable. Run this model eagerly for it "
                    f"(tgc.set_stance('force_eager') or the uncompiled module).")
            n = len(spec.differentiable)
            given = [g for g, d in zip(grads[:n], spec.differentiable) if d]
            # A backward per set of absent gradients (outputs the loss does
            # not use: a model's logits and attention caches next to its
            # loss), compiled with zeros in their place, not passed zeros.
            missing = tuple(i for i, g in enumerate(given) if g is None)
            backward = spec.backwards.get(missing)
            if backward is None:
                graph = spec.backward_graph if not missing else without_tangents(
                    spec.backward_graph, spec.num_saved, missing, ctx.out_meta)
                backward = spec.backwards[missing] = spec.make_backward(graph)
            spec.backward = backward
            tangents = [g.contiguous() for g in given if g is not None]
            out = backward(*ctx.saved_tensors, *tangents)
            out = list(out) if isinstance(out, (list, tuple)) else [out]
            if spec.grad_deps is not None and any(g is None for g in given):
                out = [None if g is not None and deps and all(given[t] is None for t in deps)
                       else g for g, deps in zip(out, spec.grad_deps)]
            return tuple(out)

    CompiledTraining.__name__ = "TgcCompiledTraining"
    return CompiledTraining


class Training:
    """The training specializations of one CompiledFunction."""

    def __init__(self, owner):
        self.owner = owner
        self.specs: List[TrainingSpec] = []
        self.eager_reason: Optional[str] = None
        self._state: Optional[State] = None
        self._state_key = None
        # The state the call's gradient check just found current (its
        # links checked once per call, not twice).
        self.fresh_state: Optional[State] = None
        # Automatic dynamic (as the inference path's): per flat argument
        # tensor, the dims whose size differed between specializations.
        self.auto_dynamic: Dict[int, Set[int]] = {}
        # Why a dynamic trace failed (the later ones are traced per size).
        self.symbolic_failed: Optional[str] = None

    # -- what the call reads --------------------------------------------------

    def state(self) -> State:
        """Parameters and buffers now (found again when a module's
        parameter dicts changed)."""
        modules = reachable_modules(self.owner.fn)
        key = tuple(id(m) for m in modules)
        if self._state is None or key != self._state_key or not self._state.current():
            self._state = State.of(modules)
            self._state_key = key
        return self._state

    def wanted(self, tensors) -> bool:
        """Whether this call needs gradients (grad mode, and an argument or
        a reachable parameter that requires grad)."""
        if not torch.is_grad_enabled():
            return False
        if any(t.requires_grad for t in tensors):
            return True
        return self.state().requires_grad()

    # -- calls ----------------------------------------------------------------

    def __call__(self, args, kwargs):
        from ._compile import flatten

        owner = self.owner
        if self.eager_reason is not None:
            owner.fallbacks += 1
            return owner.fn(*args, **kwargs)
        user, keys = flatten((args, kwargs))
        state, self.fresh_state = self.fresh_state or self.state(), None
        flat = list(user) + list(state.tensors)
        # Autocast's state (its casts are in the trace) and the default
        # dtype (factories without a dtype made their results in it).
        key = (keys, tuple(_meta(t) for t in flat), len(user), _state.autocast_state(),
               torch.get_default_dtype(), _state.hooks_version(),
               _state.tf32_flags() if any(t.is_cuda for t in flat) else None)
        spec = self._lookup(key, flat)
        if spec is None:
            with owner._compile_lock:
                spec = self._lookup(key, flat)
                if spec is None:
                    try:
                        spec = self._new_spec(args, kwargs, user, keys, state, key)
                    except Eager as e:
                        if isinstance(e.__cause__, IndexError) or \
                                any(t.numel() == 0 for t in user):
                            # An index out of range in this call's data: the
                            # model's error, as eager raises it; or a tensor
                            # with no elements (a batch of 0: PyTorch 1.13's
                            # layer norm backward does not decompose there).
                            # Not a reason to run eagerly from now on.
                            return self._eager_once(str(e), args, kwargs)
                        return self._eager(str(e), args, kwargs)
        if spec is None:  # the recompile limit: ran eagerly
            owner.fallbacks += 1
            return owner.fn(*args, **kwargs)
        spec.hits += 1
        results = spec.function.apply(*flat)
        n = len(spec.differentiable)
        if spec.mutated:
            _write_back([flat[i] for i in spec.mutated], list(results[n:]))
        return rebuild_output(spec.out_key, list(results[:n]))

    def _lookup(self, key, flat) -> Optional[TrainingSpec]:
        for spec in reversed(self.specs):
            if spec.serves(key, flat) and spec.holds() is None:
                return spec
        return None

    def _dynamic_dims(self, key, n_user: int) -> Optional[Dict[int, Set[int]]]:
        """The flat inputs' dims to trace as symbols, or None for a trace
        of the call's sizes: `dynamic=True`, every dim of the arguments;
        by default, the arguments' dims whose size differs from an earlier
        specialization's (the same key otherwise); never with
        `dynamic=False`, on PyTorch 1.13, or after a dynamic trace failed."""
        owner = self.owner
        metas = key[1]
        if owner.dynamic is False or self.symbolic_failed is not None or \
                not symbolic_available():
            return None
        if owner.dynamic is True:
            dims = {i: set(range(len(metas[i][0]))) for i in range(n_user)}
        else:
            for s in self.specs:
                if s.key[0] != key[0] or s.key[2:] != key[2:]:
                    continue
                same = all(a[1:] == b[1:] and (i < n_user or a[0] == b[0])
                           for i, (a, b) in enumerate(zip(s.key[1], metas)))
                if not same or len(s.key[1]) != len(metas):
                    continue
                for i in range(n_user):
                    old, new = s.key[1][i][0], metas[i][0]
                    if len(old) == len(new):
                        for d, (a, b) in enumerate(zip(old, new)):
                            if a != b:
                                self.auto_dynamic.setdefault(i, set()).add(d)
            dims = {i: set(d) for i, d in self.auto_dynamic.items()}
        for i, d in owner.declared_dynamic.items():
            if i < n_user:
                dims.setdefault(i, set()).update(d)
        # Sizes 0 and 1 stay static (as PyTorch's symbolic shapes do).
        dims = {i: {d for d in ds if d < len(metas[i][0]) and metas[i][0][d] > 1}
                for i, ds in dims.items()}
        dims = {i: ds for i, ds in dims.items() if ds}
        return dims or None

    def _eager_once(self, reason: str, args, kwargs):
        """This call eagerly: its error is eager's (an IndexError of the
        call's data); where eager runs it after all, as _eager."""
        owner = self.owner
        result = owner.fn(*args, **kwargs)  # raises eager's error
        owner.fallbacks += 1
        msg = f"{owner.name} (training): a call ran eagerly: {reason}"
        if msg not in owner.fallback_reasons:
            owner.fallback_reasons.append(msg)
        return result

    def _eager(self, reason: str, args, kwargs):
        owner = self.owner
        self.eager_reason = reason
        owner.fallbacks += 1
        msg = f"{owner.name} (training) runs eagerly from now on: {reason}"
        owner.fallback_reasons.append(msg)
        if not owner.fallback:
            raise Unsupported(msg + " (tgc.compile(..., fallback=True) runs it eagerly)")
        warnings.warn("tgc: " + msg)
        return owner.fn(*args, **kwargs)

    def _new_spec(self, args, kwargs, user, keys, state, key) -> Optional[TrainingSpec]:
        from ._compile import _log, _stance, RecompileError

        owner = self.owner
        if self.specs:
            def why(s) -> str:
                if s.key[3] != key[3]:
                    return (f"torch.autocast's state differs ({_autocast_text(s.key[3])} "
                            f"when traced, {_autocast_text(key[3])} now)")
                if s.key[4] != key[4]:
                    return (f"torch.get_default_dtype() differs ({s.key[4]} when traced, "
                            f"{key[4]} now)")
                if s.key[5] != key[5]:
                    return "a module hook was registered or removed since it was traced"
                if s.key[6] != key[6]:
                    return ("the TF32 flags (torch.backends.cuda.matmul.allow_tf32, "
                            f"torch.backends.cudnn.allow_tf32) differ: {s.key[6]} when "
                            f"traced, {key[6]} now")
                if s.dynamic is not None and s.masked_key == mask_key(key, s.dynamic):
                    text = s.size_guards.text
                    return "the sizes fail the dynamic trace's guards" + (
                        f" ({text[:200]})" if text else "")
                return "the inputs' shapes, dtypes, devices or requires_grad differ"

            failures = [f"training specialization {i}: " + (s.holds() or why(s))
                        for i, s in enumerate(self.specs)]
            reason = f"recompiling {owner.name} for training: " + "; ".join(failures[-2:])
            if _stance == "fail_on_recompile":
                raise RecompileError(reason)
            if _stance == "eager_on_recompile" or len(self.specs) > owner.recompile_limit:
                why = "stance eager_on_recompile" if _stance == "eager_on_recompile" else \
                    f"recompile limit ({owner.recompile_limit}) reached"
                owner.fallback_reasons.append(f"{reason}: {why}; ran eagerly")
                warnings.warn(f"tgc: {reason}: {why}; running eagerly")
                return None
            owner.recompile_reasons.append(reason)
            _log("recompiles", reason)
        else:
            _log("recompiles", f"compiling {owner.name} for training (first call)")
        dynamic = self._dynamic_dims(key, len(user))
        spec = None
        if dynamic is not None:
            try:
                spec = self._trace(args, kwargs, user, keys, state, key, dynamic)
            except (SymbolicUnsupported, Eager) as e:
                self.symbolic_failed = str(e)
                reason = (f"{owner.name}: the training trace with dynamic sizes failed "
                          f"({e}); tracing for these sizes (a recompile per size)")
                owner.recompile_reasons.append(reason)
                _log("recompiles", reason)
        if spec is None:
            spec = self._trace(args, kwargs, user, keys, state, key)
        self.specs.append(spec)
        return spec

    # -- tracing --------------------------------------------------------------

    def _trace(self, args, kwargs, user, keys, state, key,
               dynamic: Optional[Dict[int, Set[int]]] = None) -> TrainingSpec:
        from ._compile import _rng_state, _set_rng_state, unflatten
        from ._trace import user_frame
        from .fx import compile_graph_module

        owner = self.owner
        start = time.perf_counter()
        n_user = len(user)
        trace = make_fx if dynamic is None else functools.partial(
            make_fx, tracing_mode="symbolic")
        flat = list(user) + list(state.tensors)
        # The trace runs the function for real on copies: its in-place
        # updates must not reach the caller's tensors or the module's.
        copies = [t.detach().clone().requires_grad_(t.requires_grad) for t in flat]
        out_info: Dict[str, Any] = {}

        def forward(*xs):
            u = list(xs[:n_user])
            a, kw = unflatten(keys, u)
            with state.replaced(xs[n_user:]):
                out = owner.fn(*a, **kw)
            tensors, out_key = flatten_output(out)
            out_info["key"] = out_key
            out_info["grad"] = [t.requires_grad and (t.is_floating_point() or t.is_complex())
                                for t in tensors]
            # The inputs' values after the call: a mutated input's new value
            # (functionalization makes it an output of the graph).
            return list(tensors) + list(xs)

        def joint(primals, tangents):
            outs = forward(*primals)
            n = len(outs) - len(primals)
            wanted = [i for i, p in enumerate(primals) if p.requires_grad]
            diff = [o for o, g in zip(outs[:n], out_info["grad"]) if g]
            grads: List[Optional[torch.Tensor]] = [None] * len(primals)
            if wanted and diff:
                got = torch.autograd.grad(diff, [primals[i] for i in wanted],
                                          grad_outputs=list(tangents), allow_unused=True)
                for i, g in zip(wanted, got):
                    grads[i] = g
            return outs, grads

        # A first run finds the outputs (their number, which need gradients).
        names = {}
        modules = state.modules
        if modules:
            names = _state.module_names(modules[0])
        recorder = _state.AttributeRecorder(names, user_frame)
        # The trace runs the function three times: random ops (dropout)
        # must not advance the generators, so the compiled call draws what
        # the eager call would have drawn.
        rng = _rng_state()
        _state.start_recording(recorder)
        try:
            with torch.enable_grad(), _tracing.tracing_through():
                probe = forward(*copies)
            n_out = len(probe) - len(flat)
            tangents = [torch.ones_like(o) for o, g in zip(probe[:n_out], out_info["grad"]) if g]
            del probe
            grad_out = list(out_info["grad"])
            out_key = out_info["key"]
            copies = [t.detach().clone().requires_grad_(t.requires_grad) for t in flat]
            if dynamic is not None:
                session = Session()
                copies, tangents = session.trace_inputs(forward, copies, dynamic, out_info, n_out)
                out_info["grad"] = grad_out
            with torch.enable_grad(), _tracing.tracing_through():
                traced = trace(joint)(copies, tangents)
        except SymbolicUnsupported:
            raise
        except Exception as e:  # noqa: BLE001 - any failure of the trace
            what = "the joint forward-backward trace" + (" with dynamic sizes" if dynamic else "")
            if dynamic is not None:
                raise SymbolicUnsupported(f"{what} failed: {type(e).__name__}: {e}")
            raise Eager(f"{what} failed: {type(e).__name__}: {e}") from e
        finally:
            _state.stop_recording()
            _set_rng_state(rng)
        guards = recorder.guards() + _state.function_value_guards(owner.fn)

        def rerun(primals, tangents):
            return torch.fx.Interpreter(traced).run(primals, tangents)

        try:
            if dynamic is None:
                copies = [t.detach().clone().requires_grad_(t.requires_grad) for t in flat]
            gm = trace(_functionalize(rerun), decompositions())(copies, tangents)
        except Exception as e:  # noqa: BLE001
            if dynamic is not None:
                raise SymbolicUnsupported(
                    f"functionalizing the dynamic joint graph failed: {type(e).__name__}: {e}")
            raise Eager(f"functionalizing the joint graph failed: {type(e).__name__}: {e}")
        finally:
            _set_rng_state(rng)
        # What the trace decided on the sizes, before the partition reads
        # them (its costs read example values only, but a guard it adds
        # must not become one of the specialization's).
        size_guards = None
        if dynamic is not None:
            kept = session.still_dynamic()
            if not kept:
                raise SymbolicUnsupported(
                    "the trace made every dynamic size static (a decision that needed its "
                    "number): " + "; ".join(session.lost))
            if kept != dynamic:
                from ._compile import _log

                _log("recompiles", f"{owner.name}: the training trace made "
                     f"{'; '.join(session.lost)} static; {dims_text(kept)} stay dynamic")
                dynamic = kept
            size_guards = session.guards()
        _check_constants(gm)
        try:
            fw, bw, mutated, num_saved = partition(gm, n_out, len(flat), len(tangents))
        except SymbolicUnsupported:
            raise
        except AssertionError as e:  # a graph the partition cannot split
            raise Eager(f"partitioning the joint graph failed: {e}")
        shared_saved = share_saved(fw, n_out, n_out + len(mutated))
        seed_device = _add_seed_input(fw, flat)
        grad_deps = _tangent_dependencies(bw, num_saved, len(tangents))
        for i in mutated:
            if flat[i].requires_grad:
                raise Eager(f"input {i} requires grad and is updated in place")
        trace_ms = (time.perf_counter() - start) * 1000

        def compile_graph(gm_part, what):
            c = compile_graph_module(gm_part, mode=owner.mode, device=owner.device,
                                     fallback=owner.fallback, fullgraph=owner.fullgraph,
                                     recompile_limit=owner.recompile_limit,
                                     options=owner.extra_options)
            c.name = f"{owner.name}_{what}"
            c.casts_traced = True  # make_fx recorded autocast's casts
            if dynamic is not None:
                # The graph's symbolic inputs stay symbolic in TGC's trace
                # of it (one compile for every size the guards accept).
                c.declared_dynamic = symbolic_placeholders(gm_part)
                c.dynamic_islands = True
            if what == "forward":
                # The saved tensors (after the outputs and the mutated
                # inputs' values) share one block per dtype.
                c.pooled_from = n_out + len(mutated)
            return c

        spec = TrainingSpec(
            key=key, value_guards=guards, forward=compile_graph(fw, "forward"),
            backward_graph=bw, make_backward=lambda g: compile_graph(g, "backward"),
            out_key=out_key, differentiable=grad_out, mutated=mutated,
            num_saved=num_saved, trace_ms=trace_ms, grad_deps=grad_deps,
            seed_device=seed_device, shared_saved=shared_saved,
            dynamic=dynamic, masked_key=mask_key(key, dynamic) if dynamic else None,
            size_guards=size_guards, made_static=list(session.lost) if dynamic else [])
        spec.function = _make_function(spec, owner.name)
        return spec

    # -- introspection ----------------------------------------------------------

    def describe(self) -> List[str]:
        lines = []
        for i, s in enumerate(self.specs):
            fw = s.forward.explain()
            ms = sum(fw.compile_ms)
            bw_text = "not compiled yet (no backward() so far)"
            bw = None
            if s.backward is not None:
                bw = s.backward.explain()
                bw_text = f"{sum(bw.compile_ms):.1f} ms"
            lines.append(
                f"training specialization {i} ({s.hits} calls): joint trace {s.trace_ms:.1f} ms, "
                f"forward compile {ms:.1f} ms, backward compile {bw_text}; "
                f"{s.num_saved} tensor(s) saved for backward"
                + (f"; updates {len(s.mutated)} input(s) in place" if s.mutated else "")
                + (f"; dynamic dims {dims_text(s.dynamic)}" if s.dynamic else ""))
            if s.dynamic and s.size_guards.text:
                lines.append(f"  size guards: {s.size_guards.text}")
            lines += [f"  made static by the trace: {m}" for m in s.made_static]
            for what, e in (("forward", fw), ("backward", bw)):
                if e is None:
                    continue
                lines += [f"  {what} graph break: {b}" for b in e.graph_breaks]
                lines += [f"  {what} eager fallback: {r}" for r in e.fallback_reasons]
        return lines


# Random ops the forward graph computes from its seed (tgc/_ops/random.py).
_RANDOM_OPS = {"aten::native_dropout", "aten::bernoulli", "aten::bernoulli_"}


def _add_seed_input(fw: torch.fx.GraphModule, flat) -> Optional[torch.device]:
    """With random ops in the forward, a last placeholder for their seed
    (fx.SEED_INPUT): each call draws one (TrainingSpec.forward_inputs), so
    the masks change per step, follow torch.manual_seed, and the backward
    reads the mask the forward saved. Returns the seed's device."""
    from .fx import SEED_INPUT

    nodes = list(fw.graph.nodes)
    if not any(n.op == "call_function" and
               getattr(getattr(n.target, "_schema", None), "name", None) in _RANDOM_OPS
               for n in nodes):
        return None
    devices = [t.device for t in flat if isinstance(t, torch.Tensor)]
    device = next((d for d in devices if d.type != "cpu"), devices[0] if devices
                  else torch.device("cpu"))
    last = [n for n in nodes if n.op == "placeholder"][-1]
    with fw.graph.inserting_after(last):
        fw.graph.placeholder(SEED_INPUT)
    fw.recompile()
    return device


def _check_constants(gm: torch.fx.GraphModule) -> None:
    """A tensor the function read from outside its arguments and modules
    (a global, a closure cell) becomes a constant of the trace: its
    gradient would be lost, so such a function runs eagerly."""
    for node in gm.graph.nodes:
        if node.op != "get_attr":
            continue
        value = gm
        for part in node.target.split("."):
            value = getattr(value, part, None)
        if isinstance(value, torch.Tensor) and value.requires_grad:
            raise Eager(
                "the function reads a tensor that requires grad from outside its "
                "arguments and modules (a global or a closure variable); pass it as "
                "an argument or make it a parameter of a module")


__all__ = ["Training", "needs_grad", "reachable_modules", "decompositions"]
