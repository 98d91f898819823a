"""Splits a joint forward-backward FX graph into a forward and a backward
graph (tgc._autograd; docs/training.md#what-the-backward-saves).

The joint graph (made by ``make_fx``) takes ``(primals, tangents)`` and
returns ``(outputs + new input values, input gradients)``. The forward
graph computes everything that does not depend on a tangent and returns
the outputs, the new values of the inputs the function updated in place,
and the tensors the backward reads ("saved"); the backward graph takes the
saved tensors and the tangents and returns the gradients.

What is saved: every forward value a backward node reads, except views
(transpose, view, expand, ...), which the backward recomputes from their
base: a view costs nothing to recompute, while TGC returns each forward
result in a buffer of its own (a saved view would be a copy).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

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
    "aten::numpy_T", "aten::view_as",
}


def _op_name(node: torch.fx.Node) -> str:
    target = node.target
    schema = getattr(target, "_schema", None)
    return schema.name if schema is not None else ""


def _is_view(node: torch.fx.Node) -> bool:
    return node.op == "call_function" and _op_name(node) in _VIEWS and \
        bool(node.args) and isinstance(node.args[0], torch.fx.Node)


def _extract(joint: torch.fx.GraphModule, inputs: List[torch.fx.Node],
             outputs: List[Optional[torch.fx.Node]]) -> torch.fx.GraphModule:
    """A graph with `inputs` as placeholders computing `outputs` (None
    stays None) from the joint graph's nodes."""
    graph = torch.fx.Graph()
    env: Dict[torch.fx.Node, torch.fx.Node] = {}
    for n in inputs:
        env[n] = graph.placeholder(n.name)
        env[n].meta = dict(n.meta)
    needed: Set[torch.fx.Node] = set()
    stack = [o for o in outputs if o is not None]
    while stack:
        n = stack.pop()
        if n in needed or n in env:
            continue
        if n.op == "placeholder":
            raise AssertionError(f"partition: {n.name} is needed but not an input")
        needed.add(n)
        stack.extend(n.all_input_nodes)
    for n in joint.graph.nodes:
        if n in needed:
            env[n] = graph.node_copy(n, lambda a: env[a])
    graph.output([env[o] if o is not None else None for o in outputs])
    graph.eliminate_dead_code()
    return torch.fx.GraphModule(joint, graph)


def partition(joint: torch.fx.GraphModule, num_outputs: int, num_inputs: int,
              num_tangents: int) -> Tuple[torch.fx.GraphModule, torch.fx.GraphModule,
                                          List[int], int]:
    """(forward, backward, mutated inputs, number saved). The joint graph
    returns `num_outputs` outputs, then the `num_inputs` inputs' values
    after the call, then one gradient per input."""
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

    on_tangent: Set[torch.fx.Node] = set(tangents)
    for n in joint.graph.nodes:
        if n.op != "output" and any(a in on_tangent for a in n.all_input_nodes):
            on_tangent.add(n)
    # Backward nodes and the forward values they read.
    backward: Set[torch.fx.Node] = set()
    stack = [g for g in grads if isinstance(g, torch.fx.Node)]
    while stack:
        n = stack.pop()
        if n in backward:
            continue
        backward.add(n)
        stack.extend(n.all_input_nodes)
    saved: List[torch.fx.Node] = []
    seen: Set[torch.fx.Node] = set()
    for n in joint.graph.nodes:
        if n not in backward or n in on_tangent:
            continue
        if not any(u in on_tangent and u in backward for u in n.users):
            continue
        # Recompute views in the backward: save their base instead.
        base = n
        while _is_view(base) and base not in primals:
            base = base.args[0]
        if base not in seen:
            seen.add(base)
            saved.append(base)
    # A view's chain back to its saved base is recomputed in the backward.
    forward = _extract(joint, primals, outs + [after[i] for i in mutated] + saved)
    backward_gm = _extract(joint, saved + tangents,
                           [g if isinstance(g, torch.fx.Node) else None for g in grads])
    return forward, backward_gm, mutated, len(saved)
