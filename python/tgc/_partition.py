"""Splits a joint forward-backward FX graph into a forward and a backward
graph (tgc._autograd; docs/training.md#what-the-backward-saves).

The joint graph (made by ``make_fx``) takes ``(primals, tangents)`` and
returns ``(outputs + new input values, input gradients)``. The forward
graph computes everything the outputs need and returns the outputs, the
new values of the inputs the function updated in place, and the tensors
the backward reads ("saved"); the backward graph takes the saved tensors
and the tangents, recomputes what it needs that was not saved, and
returns the gradients.

What is saved is a minimum cut (AOTAutograd's min-cut rematerialization,
``torch._functorch.partitioners``, with TGC's costs): the forward values
form a flow network from the inputs to the backward's nodes, each value
costing the bytes that saving it moves (written by the forward, read by
the backward), and the cheapest set of values that separates the inputs
from the backward is saved. Everything between the cut and the backward
is recomputed there, so only ops that are cheap to recompute and fuse
into their consumers may lie there (``RECOMPUTABLE``: elementwise ops,
casts, constants, views and reductions that do not shrink their input
much). Random ops are never recomputed (the backward reads the forward's
mask). Views are never saved: TGC returns each forward result in a
buffer of its own, so a saved view would be a copy; their base is saved.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Dict, List, Optional, Set, Tuple

import torch
import torch.fx
import torch.utils._pytree as pytree

aten = torch.ops.aten

# Ops that only re-describe their first argument's memory: the backward
# recomputes them instead of saving their result.
_VIEWS = {
    "aten::transpose", "aten::t", "aten::view", "aten::_unsafe_view", "aten::reshape",
    "aten::expand", "aten::permute", "aten::unsqueeze", "aten::squeeze", "aten::alias",
    "aten::detach", "aten::slice", "aten::select", "aten::as_strided",
    "aten::numpy_T", "aten::view_as", "aten::_reshape_alias",
}

# Elementwise ops, casts and constant factories: recomputing one in the
# backward costs its inputs' reads inside a kernel that runs anyway (TGC
# fuses them into their elementwise or reduction consumers).
_ELEMENTWISE = {
    "abs", "neg", "relu", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
    "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "erfc", "silu", "gelu",
    "reciprocal", "sign", "sgn", "floor", "ceil", "round", "trunc", "frac", "square",
    "add", "sub", "rsub", "mul", "div", "pow", "remainder", "fmod", "maximum", "minimum",
    "fmax", "fmin", "atan2", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
    "logical_or", "logical_not", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_not",
    "bitwise_xor", "where", "clamp", "clamp_min", "clamp_max", "hardtanh", "hardsigmoid",
    "hardswish", "leaky_relu", "elu", "softplus", "mish", "threshold", "threshold_backward",
    "gelu_backward", "tanh_backward", "sigmoid_backward", "lerp", "addcmul", "addcdiv",
    "masked_fill", "isnan", "isinf", "nan_to_num", "_to_copy", "to", "type_as", "clone",
    "fill", "lift_fresh_copy",
    # constants
    "full", "full_like", "zeros", "zeros_like", "ones", "ones_like", "empty", "empty_like",
    "arange", "scalar_tensor", "new_zeros", "new_ones", "new_full", "new_empty",
}
# Reductions: recomputable unless they shrink their input more than 4x
# (saving the small result is then cheaper than reading the input again:
# a layer norm's statistics, a softmax's sums).
_REDUCTIONS = {"sum", "mean", "amax", "amin", "var", "prod", "any", "all"}
RECOMPUTABLE = {f"aten::{n}" for n in _ELEMENTWISE | _REDUCTIONS} | _VIEWS
_REDUCTION_NAMES = {f"aten::{n}" for n in _REDUCTIONS}
# Random ops fuse with elementwise neighbours but are never recomputed.
_RANDOM = {"aten::native_dropout", "aten::bernoulli", "aten::bernoulli_", "aten::rand_like",
           "aten::randn_like"}


def _op_name(node: torch.fx.Node) -> str:
    target = node.target
    schema = getattr(target, "_schema", None)
    return schema.name if schema is not None else ""


# Views with explicit strides: recomputing one is right only when its base
# has the strides (and storage offset) it had in the trace. The backward
# receives each saved tensor contiguous, at offset 0: _reshape_alias (no
# offset of its own) is a view when its base was contiguous; as_strided
# (an absolute storage offset, which 1.13's metadata does not record for
# the base) never is. Neither is recomputed in the backward otherwise.
_STRIDED_VIEWS = {"aten::as_strided", "aten::_reshape_alias"}


def _contiguous(node: torch.fx.Node) -> bool:
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        from . import _symbolic

        return _symbolic.is_contiguous(val)
    meta = node.meta.get("tensor_meta")
    if meta is None or not hasattr(meta, "stride"):
        return False
    expected, step = [], 1
    for size in reversed(list(meta.shape)):
        expected.append(step)
        step *= max(int(size), 1)
    return all(int(s) == e or int(d) == 1 for s, e, d in
               zip(meta.stride, reversed(expected), meta.shape))


def _is_view(node: torch.fx.Node) -> bool:
    if node.op != "call_function" or not node.args or \
            not isinstance(node.args[0], torch.fx.Node):
        return False
    name = _op_name(node)
    if name == "aten::as_strided":
        return False
    if name in _STRIDED_VIEWS:
        return _contiguous(node.args[0])
    return name in _VIEWS


def _strided_not_view(node: torch.fx.Node) -> bool:
    """A strided view the backward must not recompute (see _STRIDED_VIEWS)."""
    return node.op == "call_function" and _op_name(node) in _STRIDED_VIEWS and \
        not _is_view(node)


def _is_getitem(node: torch.fx.Node) -> bool:
    return node.op == "call_function" and node.target is operator.getitem


def _fusible(node: torch.fx.Node) -> bool:
    if node.op != "call_function":
        return False
    if _is_getitem(node):
        return True
    name = _op_name(node)
    return name in RECOMPUTABLE or name in _RANDOM


# Ops that read an elementwise producer at a few points (a loss's target
# class per row): tgc-sink-gathers moves their gather into the producer's
# operands, so the producer is not written out in full for them.
_READS_POINTS = {"aten::gather", "aten::nll_loss_forward", "aten::nll_loss2d_forward"}


def _fuses_into(node: torch.fx.Node, user: torch.fx.Node) -> bool:
    return _fusible(node) and (_fusible(user) or (
        user.op == "call_function" and _op_name(user) in _READS_POINTS))


def tensor_meta(node: torch.fx.Node) -> Optional[Tuple[Tuple[int, ...], torch.dtype]]:
    """(shape, dtype) of the tensor a node computes, from its trace
    metadata (`val` on 2.x, `tensor_meta` on 1.13); None when it is not a
    tensor (a tuple of results, a Python value) or unrecorded. A symbolic
    size (a dynamic trace, tgc._symbolic) is its example value: costs
    only, never a guard."""
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        from ._symbolic import hint

        return tuple(hint(s) for s in val.shape), val.dtype
    meta = node.meta.get("tensor_meta")
    if meta is not None and hasattr(meta, "shape") and hasattr(meta, "dtype"):
        return tuple(int(s) for s in meta.shape), meta.dtype
    return None


def shape_key(node: torch.fx.Node) -> Optional[Tuple[Any, ...]]:
    """The exact shape of the tensor a node computes: ints, and each
    symbolic size as its expression (equal keys: equal for every size)."""
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        return tuple(s if isinstance(s, int) else str(s.node.expr) for s in val.shape)
    meta = tensor_meta(node)
    return None if meta is None else meta[0]


def is_size_node(node: torch.fx.Node) -> bool:
    """A node computing a symbolic size (sym_size, arithmetic on sizes) in
    a dynamic trace: never saved, rebuilt in the backward from its inputs'
    sizes (SizeEmitter)."""
    from . import _symbolic

    val = node.meta.get("val")
    if _symbolic.is_symbolic(val):
        return True
    # A size arithmetic gave a number (a size the trace specialized).
    return isinstance(val, (int, float, bool)) and node.op == "call_function" and (
        getattr(node.target, "__module__", None) == "_operator" or
        _op_name(node).startswith("aten::sym_"))


def size_of(node: torch.fx.Node) -> Optional[int]:
    """Bytes of the tensor a node computes; None when it is not a tensor."""
    meta = tensor_meta(node)
    if meta is None:
        return None
    numel = 1
    for s in meta[0]:
        numel *= s
    return numel * torch.empty((), dtype=meta[1]).element_size()


def _extract(joint: torch.fx.GraphModule, inputs: List[torch.fx.Node],
             outputs: List[Optional[torch.fx.Node]],
             rebuild_sizes: bool = False) -> torch.fx.GraphModule:
    """A graph with `inputs` as placeholders computing `outputs` (None
    stays None) from the joint graph's nodes. With `rebuild_sizes` (the
    backward), a symbolic size is computed from the inputs' sizes
    (tgc._symbolic.SizeEmitter), not from the forward nodes it was read
    from."""
    from . import _symbolic

    graph = torch.fx.Graph()
    env: Dict[torch.fx.Node, Any] = {}
    for n in inputs:
        env[n] = graph.placeholder(n.name)
        env[n].meta = dict(n.meta)
    sizes = _symbolic.SizeEmitter(graph, [env[n] for n in inputs]) if rebuild_sizes else None
    needed: Set[torch.fx.Node] = set()
    stack = [o for o in outputs if o is not None]
    while stack:
        n = stack.pop()
        if n in needed or n in env:
            continue
        if n.op == "placeholder" and not (sizes is not None and is_size_node(n)):
            raise AssertionError(f"partition: {n.name} is needed but not an input")
        needed.add(n)
        if sizes is None or not is_size_node(n):
            stack.extend(n.all_input_nodes)
    for n in joint.graph.nodes:
        if n in needed:
            if sizes is not None and is_size_node(n):
                env[n] = sizes.emit(n.meta["val"])
            else:
                env[n] = graph.node_copy(n, lambda a: env[a])
    graph.output([env[o] if o is not None else None for o in outputs])
    graph.eliminate_dead_code()
    return torch.fx.GraphModule(joint, graph)


class _Flow:
    """A flow network with Dinic's maximum flow (adjacency arrays; a
    reverse edge per edge). Capacities are floats; math.inf is unbounded."""

    def __init__(self) -> None:
        self.head: List[int] = []
        self.to: List[int] = []
        self.cap: List[float] = []
        self.next: List[int] = []

    def node(self) -> int:
        self.head.append(-1)
        return len(self.head) - 1

    def edge(self, u: int, v: int, cap: float) -> None:
        for a, b, c in ((u, v, cap), (v, u, 0.0)):
            self.to.append(b)
            self.cap.append(c)
            self.next.append(self.head[a])
            self.head[a] = len(self.to) - 1

    def _levels(self, s: int, t: int) -> Optional[List[int]]:
        level = [-1] * len(self.head)
        level[s] = 0
        queue = [s]
        for u in queue:
            e = self.head[u]
            while e != -1:
                v = self.to[e]
                if self.cap[e] > 0 and level[v] < 0:
                    level[v] = level[u] + 1
                    queue.append(v)
                e = self.next[e]
        return level if level[t] >= 0 else None

    def max_flow(self, s: int, t: int) -> float:
        total = 0.0
        while True:
            level = self._levels(s, t)
            if level is None:
                return total
            it = list(self.head)
            while True:
                pushed = self._augment(s, t, level, it)
                if pushed <= 0:
                    break
                if pushed == math.inf:
                    return math.inf
                total += pushed

    def _augment(self, s: int, t: int, level: List[int], it: List[int]) -> float:
        """One augmenting path in the level graph (iterative DFS)."""
        path: List[int] = []  # edges
        u = s
        while True:
            if u == t:
                pushed = min(self.cap[e] for e in path)
                if pushed == math.inf:
                    return math.inf
                for e in path:
                    self.cap[e] -= pushed
                    self.cap[e ^ 1] += pushed
                return pushed
            e = it[u]
            while e != -1:
                v = self.to[e]
                if self.cap[e] > 0 and level[v] == level[u] + 1:
                    break
                e = self.next[e]
            it[u] = e
            if e != -1:
                path.append(e)
                u = self.to[e]
                continue
            # Dead end: retreat and skip the edge that led here.
            if not path:
                return 0.0
            level[u] = -1
            back = path.pop()
            u = self.to[back ^ 1]
            it[u] = self.next[it[u]]

    def reachable(self, s: int) -> Set[int]:
        seen = {s}
        stack = [s]
        while stack:
            u = stack.pop()
            e = self.head[u]
            while e != -1:
                v = self.to[e]
                if self.cap[e] > 0 and v not in seen:
                    seen.add(v)
                    stack.append(v)
                e = self.next[e]
        return seen


def _on_tangent(joint: torch.fx.GraphModule,
                tangents: List[torch.fx.Node]) -> Set[torch.fx.Node]:
    """The tangents and every node computed from one (the backward's own
    work, which the forward cannot compute)."""
    on_tangent: Set[torch.fx.Node] = set(tangents)
    for n in joint.graph.nodes:
        if n.op != "output" and any(a in on_tangent for a in n.all_input_nodes):
            on_tangent.add(n)
    return on_tangent


def _closure(roots, stop: Set[torch.fx.Node]) -> Set[torch.fx.Node]:
    """The roots and every node they read, not going past `stop`."""
    out: Set[torch.fx.Node] = set()
    stack = [r for r in roots if isinstance(r, torch.fx.Node)]
    while stack:
        n = stack.pop()
        if n in out:
            continue
        out.add(n)
        if n not in stop:
            stack.extend(n.all_input_nodes)
    return out


def _min_cut_saved(joint: torch.fx.GraphModule, primals: List[torch.fx.Node],
                   tangents: List[torch.fx.Node], forward_roots: List[torch.fx.Node],
                   grads: List[torch.fx.Node],
                   mutated: Set[torch.fx.Node]) -> Optional[List[torch.fx.Node]]:
    """The forward values to save (graph order), or None when no finite
    cut exists (a value the backward needs cannot be saved). An input in
    `mutated` is never saved: the call writes its new value into it after
    the forward, so the backward would read the new value (PyTorch's
    version counter then refuses the backward)."""
    nodes = list(joint.graph.nodes)
    order = {n: i for i, n in enumerate(nodes)}
    backward = _closure(grads, set())
    on_tangent = _on_tangent(joint, tangents)
    required_bw = (on_tangent | {g for g in grads if g.op != "placeholder"}) & backward
    required_fw = _closure(forward_roots, set(primals))

    def materialized_backward(node: torch.fx.Node) -> bool:
        """A backward user (through views) that does not fuse with it: the
        backward would write the recomputed value to memory anyway."""
        todo = [node]
        seen: Set[torch.fx.Node] = set()
        while todo:
            cur = todo.pop()
            if cur in seen:
                continue
            seen.add(cur)
            for user in cur.users:
                if _is_view(user):
                    # Views the forward shares with the backward (a
                    # matmul operand's reshape) lead to backward users too.
                    todo.append(user)
                    continue
                if user in required_fw or user not in backward:
                    continue
                if not (_fusible(cur) and _fusible(user)):
                    return True
        return False

    def banned(node: torch.fx.Node) -> bool:
        if node.op != "call_function":
            return False
        if _is_getitem(node):
            return False
        if _is_view(node):
            return False
        name = _op_name(node)
        if name in _STRIDED_VIEWS or name not in RECOMPUTABLE:
            return True
        if materialized_backward(node):
            return True
        if name in _REDUCTION_NAMES:
            inputs = sum(size_of(a) or 0 for a in node.args if isinstance(a, torch.fx.Node))
            out = size_of(node)
            return out is None or out * 4 < inputs
        return False

    def weight(node: torch.fx.Node) -> float:
        if node in mutated:
            return math.inf  # the values computed from it are saved
        if _is_view(node):
            return math.inf  # saved as its base (a saved view is a copy)
        size = size_of(node)
        if size is None:
            return math.inf  # a tuple: its getitems are the tensors
        # A value the forward writes to memory anyway (a placeholder, a
        # matmul's input, an output) costs one read to save; one that
        # lives only inside a fused kernel costs its write and its read.
        materialized = node.op == "placeholder" or \
            not all(_fuses_into(node, u) for u in node.users)
        return float(max(size, 1) * (1 if materialized else 2))

    flow = _Flow()
    source, sink = flow.node(), flow.node()
    ids: Dict[torch.fx.Node, Tuple[int, int]] = {}
    for n in nodes:
        # (Sizes are not in the network: the backward reads them from its
        # own inputs.)
        if n in backward and n.op != "output" and not is_size_node(n):
            ids[n] = (flow.node(), flow.node())
    primal_set = set(primals)
    for n, (n_in, n_out) in ids.items():
        if n in required_bw:
            flow.edge(n_in, sink, math.inf)
            continue
        # (A strided view on a base whose layout the backward does not
        # have is computed in the forward even when only the backward
        # needs it.)
        if n in primal_set or (n in required_fw and banned(n)) or _strided_not_view(n):
            flow.edge(source, n_in, math.inf)
        if n.op == "placeholder" and n not in primal_set:
            return None  # a placeholder that is neither primal nor tangent
        flow.edge(n_in, n_out, weight(n))
        for user in n.users:
            if user in ids:
                flow.edge(n_out, ids[user][0], math.inf)
    if flow.max_flow(source, sink) == math.inf:
        return None
    reach = flow.reachable(source)
    saved = [n for n, (n_in, n_out) in ids.items() if n_in in reach and n_out not in reach]
    return sorted(saved, key=order.__getitem__)


def _default_saved(joint, primals, tangents, grads) -> List[torch.fx.Node]:
    """Every forward value a backward node reads (views: their base)."""
    on_tangent = _on_tangent(joint, tangents)
    backward = _closure(grads, set())
    saved: List[torch.fx.Node] = []
    seen: Set[torch.fx.Node] = set()
    for n in joint.graph.nodes:
        if n not in backward or n in on_tangent or is_size_node(n):
            continue
        if not any(u in on_tangent and u in backward for u in n.users):
            continue
        base = n
        while _is_view(base) and base not in primals:
            base = base.args[0]
        if base not in seen:
            seen.add(base)
            saved.append(base)
    return saved


def partition(joint: torch.fx.GraphModule, num_outputs: int, num_inputs: int,
              num_tangents: int, recompute: bool = True
              ) -> Tuple[torch.fx.GraphModule, torch.fx.GraphModule, List[int], int]:
    """(forward, backward, mutated inputs, number saved). The joint graph
    returns `num_outputs` outputs, then the `num_inputs` inputs' values
    after the call, then one gradient per input. `recompute=False` saves
    every forward value the backward reads (views excepted)."""
    placeholders = [n for n in joint.graph.nodes if n.op == "placeholder"]
    primals = placeholders[:num_inputs]
    tangents = placeholders[num_inputs:num_inputs + num_tangents]
    output = next(n for n in joint.graph.nodes if n.op == "output")
    flat = pytree.tree_flatten(output.args)[0]
    outs = flat[:num_outputs]
    after = flat[num_outputs:num_outputs + num_inputs]
    grads = flat[num_outputs + num_inputs:]
    # An input updated in place: its value after the call is another node
    # (functionalization made it an output; the copy_ back is dropped).
    mutated = [i for i, (p, a) in enumerate(zip(primals, after)) if a is not p]
    for n in list(joint.graph.nodes):
        if n.op == "call_function" and _op_name(n) == "aten::copy_" and \
                n.args and n.args[0] in primals and not n.users:
            joint.graph.erase_node(n)
    grad_nodes = [g for g in grads if isinstance(g, torch.fx.Node)]
    forward_roots = [o for o in outs + [after[i] for i in mutated]
                     if isinstance(o, torch.fx.Node)]
    saved = None
    if recompute and grad_nodes:
        saved = _min_cut_saved(joint, primals, tangents, forward_roots, grad_nodes,
                               {primals[i] for i in mutated})
    if saved is None:
        saved = _default_saved(joint, primals, tangents, grad_nodes)
    forward = _extract(joint, primals, outs + [after[i] for i in mutated] + saved)
    backward_gm = _extract(joint, saved + tangents,
                           [g if isinstance(g, torch.fx.Node) else None for g in grads],
                           rebuild_sizes=True)
    return forward, backward_gm, mutated, len(saved)


# Reshapes whose result is the same elements as their input, in order.
_RESHAPES = {torch.ops.aten.view.default, torch.ops.aten._unsafe_view.default,
             torch.ops.aten.reshape.default}


def share_saved(forward: torch.fx.GraphModule, num_outputs: int, num_first: int
                ) -> List[Tuple[int, int, Optional[Tuple[int, ...]]]]:
    """Saved tensors an output of the forward already holds: the output
    itself (a model's attention keys and values, returned and read by the
    backward) or its base when the output is a reshape of it (a model's
    logits, saved 2-d for the loss's backward and returned 3-d). Returned
    twice, each was a result of its own, which cost a copy: 823 MB per
    step for GPT-2's logits. Each is removed from the forward's outputs
    (the first `num_outputs` are the user's, the saved ones start at
    `num_first`); the caller rebuilds it from the output (rebuild_saved).
    Per removed tensor: (position among the saved, output index, shape to
    reshape the output to, or None for the output itself)."""
    node = next(n for n in forward.graph.nodes if n.op == "output")
    outs = list(node.args[0])
    user = outs[:num_outputs]
    shared, kept = [], outs[:num_first]
    for k, s in enumerate(outs[num_first:]):
        source = None
        if isinstance(s, torch.fx.Node):
            if s in user:
                source = (user.index(s), None)
            else:
                for j, u in enumerate(user):
                    if isinstance(u, torch.fx.Node) and u.op == "call_function" and \
                            u.target in _RESHAPES and u.args and u.args[0] is s:
                        shape = _reshape_target(s)
                        if shape is not None:
                            source = (j, shape)
                            break
        if source is None:
            kept.append(s)
        else:
            shared.append((k, source[0], source[1]))
    if shared:
        node.args = (tuple(kept),)
        forward.recompile()
    return shared


def _reshape_target(node: torch.fx.Node) -> Optional[Tuple[int, ...]]:
    """The shape an output is reshaped to to rebuild `node` from it: its
    sizes, with -1 for its one symbolic size (None with more: the shape
    differs per call)."""
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        symbolic = [d for d, s in enumerate(val.shape) if not isinstance(s, int)]
        if len(symbolic) > 1:
            return None
        return tuple(-1 if d in symbolic else s for d, s in enumerate(val.shape))
    meta = tensor_meta(node)
    return None if meta is None else meta[0]


def rebuild_saved(shared, user: List[torch.Tensor], saved: List[torch.Tensor]
                  ) -> List[torch.Tensor]:
    """The saved tensors share_saved removed, back in their places."""
    saved = list(saved)
    for pos, j, shape in shared:
        saved.insert(pos, user[j] if shape is None else user[j].reshape(shape))
    return saved
