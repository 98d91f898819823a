"""FX importer: torch-level GraphModules (symbolic_trace), aten-level ones
(make_fx, torch.export) and the torch.compile backend."""

import operator

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from conftest import assert_same, requires_torch2


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.ln = nn.LayerNorm(8)

    def forward(self, x):
        return torch.softmax(self.ln(F.gelu(self.fc(x)) + x), dim=-1)


def test_symbolic_trace_graph_module():
    model = Block().eval()
    gm = torch.fx.symbolic_trace(model)
    f = tgc.compile(gm, dynamic=True)
    with torch.no_grad():
        for b in (2, 5, 9):
            x = torch.randn(b, 8)
            assert_same(f(x), model(x), rtol=1e-4, atol=1e-5)
    assert tgc.explain(f).compiles == 1
    assert "tgc.layer_norm" in tgc.explain(f).graphs[0]


def test_aten_graph_module():
    from torch.fx.experimental.proxy_tensor import make_fx

    def fn(x, w, b):
        h = torch.relu(x @ w + b)
        return torch.softmax(h, dim=-1).sum(0)

    x, w, b = torch.randn(4, 8), torch.randn(8, 3), torch.randn(3)
    gm = make_fx(fn)(x, w, b)
    assert "aten" in gm.code
    f = tgc.compile(gm, dynamic=True)
    for n in (4, 7):
        x = torch.randn(n, 8)
        assert_same(f(x, w, b), fn(x, w, b), rtol=1e-4, atol=1e-5)
    assert tgc.explain(f).compiles == 1


@requires_torch2
def test_exported_program_with_dynamic_dim():
    model = Block().eval()
    batch = torch.export.Dim("batch", min=2, max=64)
    ep = torch.export.export(model, (torch.randn(4, 8),), dynamic_shapes={"x": {0: batch}})
    f = tgc.compile(ep)
    with torch.no_grad():
        for b in (2, 3, 17, 64):
            x = torch.randn(b, 8)
            assert_same(f(x), model(x), rtol=1e-4, atol=1e-5)
    assert tgc.explain(f).compiles == 1
    with pytest.raises(ValueError, match="outside the range"):
        f(torch.randn(65, 8))


@requires_torch2
def test_torch_compile_backend():
    from tgc.backend import tgc_backend

    made = []

    def spy(gm, example_inputs, **kw):
        made.append(tgc_backend(gm, example_inputs, **kw))
        return made[-1]

    model = Block().eval()
    compiled = torch.compile(model, backend=spy, dynamic=True)
    with torch.no_grad():
        for b in (3, 5, 11):
            x = torch.randn(b, 8)
            assert_same(compiled(x), model(x), rtol=1e-4, atol=1e-5)
    assert len(made) == 1
    inner = made[0]._tgc_compiled
    assert inner.eager_reason is None, inner.eager_reason
    assert tgc.explain(inner).compiles == 1  # the batch stays dynamic
    # The registered name works too.
    c2 = torch.compile(Block().eval(), backend="tgc")
    with torch.no_grad():
        c2(torch.randn(4, 8))


def test_locations_come_from_the_graph_nodes():
    # An FX graph's node knows the model line it came from (Dynamo and
    # torch.export record it; torch.fx's tracer when asked): a graph break
    # names that line, not the caller of the compiled graph.
    class M(torch.nn.Module):
        def forward(self, x):
            y = torch.relu(x)
            return torch.cumprod(y, 0) + 1  # the line

    tracer = torch.fx.Tracer()
    tracer.record_stack_traces = True
    m = M()
    gm = torch.fx.GraphModule(m, tracer.trace(m))
    c = tgc.compile(gm)
    x = torch.randn(3)
    assert_same(c(x), m(x))
    (b,) = tgc.explain(c).graph_breaks
    line = next(i for i, l in enumerate(open(__file__), 1) if l.rstrip().endswith("# the line"))
    assert b.where == f"{__file__}:{line}", b


def test_torch_size_of_symbolic_sizes_in_a_graph():
    # Dynamo's graphs build view sizes with torch.Size((s0, s1, n)) (HF
    # GPT-2's Conv1D): the sizes stay symbolic (it used to specialize them,
    # one compile per sequence length).
    g = torch.fx.Graph()
    x = g.placeholder("x")
    size = g.call_method("size", (x,))
    b = g.call_function(operator.getitem, (size, 0))
    s = g.call_function(operator.getitem, (size, 1))
    shape = g.call_function(torch.Size, ((b, s, 4),))
    flat = g.call_method("view", (x, -1, 4))
    g.output(g.call_method("view", (g.call_function(torch.relu, (flat,)), shape)))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    c = tgc.compile(gm, dynamic=True)
    for n in (3, 5, 9):
        x = torch.randn(2, n, 4)
        assert_same(c(x), torch.relu(x))
    assert tgc.explain(c).compiles == 1


@torch.no_grad()
def test_graph_module_state_replaced_after_the_compile():
    # compile_graph_module ran the graph through a plain function: the
    # GraphModule's parameters and attributes were nobody's state, and a
    # replaced one kept its old tensor compiled in.
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = nn.Parameter(torch.zeros(3))

        def forward(self, x):
            return x + self.p * 3

    x = torch.ones(3)
    gm = torch.fx.symbolic_trace(M())
    c = tgc.fx.compile_graph_module(gm)
    torch.testing.assert_close(c(x), gm(x))
    gm.p = nn.Parameter(torch.full((3,), 2.0))
    torch.testing.assert_close(c(x), gm(x))

    g = torch.fx.Graph()
    xi = g.placeholder("x")
    g.output(g.call_function(torch.add, (xi, g.get_attr("const"))))
    root = nn.Module()
    root.const = torch.zeros(3)
    gm2 = torch.fx.GraphModule(root, g)
    c2 = tgc.fx.compile_graph_module(gm2)
    torch.testing.assert_close(c2(x), gm2(x))
    gm2.const = torch.full((3,), -1.0)
    torch.testing.assert_close(c2(x), gm2(x))
