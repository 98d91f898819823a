"""Numbers computed from tensor data in FX graphs (tgc._scalars): `aten.item`
and Python's arithmetic on its result stay in the compiled graph; a use that
needs the number itself is a graph break that runs with the call's number.
The graphs are built node by node, as torch.export writes them (PyTorch 1.13
cannot export)."""

import math
import operator

import pytest
import torch
import torch.fx as fx

import tgc
from conftest import assert_same

aten = torch.ops.aten


def graph(body, inputs: int) -> fx.GraphModule:
    g = fx.Graph()
    xs = [g.placeholder(f"x{i}") for i in range(inputs)]
    g.output(body(g, *xs))
    return fx.GraphModule(torch.nn.Module(), g)


def item(g, t):
    return g.call_function(aten.item.default, (t,))


def scalar_arithmetic(g, a, b):
    # int(a * 2) and int(b - 1): numbers from intermediates.
    p = item(g, g.call_function(aten.mul.Tensor, (a, 2)))
    q = item(g, g.call_function(aten.sub.Tensor, (b, 1)))
    return tuple(g.call_function(f, (p, q)) for f in (
        operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
        operator.mod, operator.lt, operator.eq)) + (
        g.call_function(operator.neg, (p,)),
        g.call_function(operator.pow, (q, 2)),
        g.call_function(torch.sym_float, (q,)) if hasattr(torch, "sym_float") else q)


def test_python_arithmetic_on_numbers_from_data_is_compiled():
    gm = graph(scalar_arithmetic, 2)
    c = tgc.compile(gm, fullgraph=True)
    for a, b in [(3, 5), (-7, 4), (5, -2), (-3, -6)]:
        x, y = torch.tensor([a]), torch.tensor(b)
        got, want = c(x, y), gm(x, y)
        assert got == want, (a, b, got, want)
        assert [type(v) for v in got] == [type(v) for v in want]
    e = tgc.explain(c)
    assert e.compiles == 1 and not e.graph_breaks, e
    assert "tgc.div" in e.graphs[0] and "rounding = floor" in e.graphs[0]


def mixed(g, x, s):
    f = item(g, g.call_function(aten.sum.default, (s,)))  # a float
    h = g.call_function(operator.truediv, (f, 3))
    return (g.call_function(aten.add.Tensor, (x, h)),
            g.call_function(aten.gt.Scalar, (x, f)),
            g.call_function(aten.clamp.default, (x, None, f)),
            g.call_function(aten.where.ScalarOther, (g.call_function(aten.lt.Scalar, (x, 0)),
                                                     x, h)),
            h, g.call_function(operator.ge, (f, 0.5)))


def test_numbers_from_data_as_scalar_operands():
    gm = graph(mixed, 2)
    c = tgc.compile(gm, fullgraph=True)
    for _ in range(3):
        x, s = torch.randn(6), torch.rand(3)
        got, want = c(x, s), gm(x, s)
        for a, b in zip(got, want):
            if isinstance(b, torch.Tensor):
                assert_same(a, b)
            else:
                assert type(a) is type(b) and a == pytest.approx(b, rel=1e-6)
    assert tgc.explain(c).compiles == 1


def test_integer_tensor_with_a_float_from_data_promotes_as_python():
    # int32 tensor + Python float: float32 (the default dtype), not float64.
    gm = graph(lambda g, x, s: g.call_function(aten.add.Tensor, (x, item(g, s))), 2)
    c = tgc.compile(gm, fullgraph=True)
    x, s = torch.arange(4, dtype=torch.int32), torch.tensor([0.25]) * 1
    assert_same(c(x, s * 2), gm(x, s * 2))
    assert c(x, s).dtype == torch.float32


def view_with_data_size(g, x, n):
    k = item(g, g.call_function(aten.add.Tensor, (n, 0)))
    v = g.call_function(aten.view.default, (x, [k, -1]))
    return g.call_function(aten.mul.Tensor, (v, 2.0))


def test_a_number_used_as_a_size_is_a_graph_break():
    gm = graph(view_with_data_size, 2)
    c = tgc.compile(gm)
    x = torch.randn(12)
    for k in (3, 4, 6, 3, 4):
        n = torch.tensor(k)
        assert_same(c(x, n), gm(x, n))
    breaks = tgc.explain(c).graph_breaks
    assert len(breaks) == 1 and "number computed from tensor data" in breaks[0].reason
    with pytest.raises(tgc.Unsupported, match="aten.view, which needs its value"):
        tgc.compile(gm, fullgraph=True)(x, torch.tensor(3))


def test_python_function_of_a_number_is_a_break_returning_a_number():
    def body(g, x):
        f = item(g, g.call_function(aten.amax.default, (x,)))
        return g.call_function(aten.mul.Tensor, (x, g.call_function(math.log, (f,))))

    gm = graph(body, 1)
    c = tgc.compile(gm)
    for shift in (1, 3, 10):
        x = torch.rand(5) + shift
        assert_same(c(x), gm(x))
    e = tgc.explain(c)
    assert e.compiles == 1 and [b.op for b in e.graph_breaks] == ["log"], e


def test_one_element_input_is_specialized_then_read_as_data():
    gm = graph(lambda g, a: g.call_function(operator.add, (item(g, a), 1)), 1)
    c = tgc.compile(gm)
    assert c(torch.tensor(3)) == 4
    assert c(torch.tensor(3)) == 4
    assert tgc.explain(c).compiles == 1
    assert c(torch.tensor(8)) == 9  # the value changed: read as data now
    assert c(torch.tensor(-5)) == -4
    assert tgc.explain(c).compiles == 2


def test_bool_result_and_not():
    def body(g, x):
        b = g.call_function(operator.gt, (item(g, g.call_function(aten.sum.default, (x,))), 0))
        return g.call_function(operator.not_, (b,))

    gm = graph(body, 1)
    c = tgc.compile(gm, fullgraph=True)
    for v in ([1.0, 2.0], [-3.0, 1.0]):
        x = torch.tensor(v)
        assert c(x) is gm(x)


def test_a_float_of_dynamic_sizes_stays_in_the_graph():
    """A symbolic make_fx graph's batch norm scales its variance by
    n / (n - 1), n = numel / C: a float of the sizes. TGC computes it in
    the graph (one compile for every batch size), not as the traced call's
    value with a guard on the size."""
    def body(g, x):
        n = g.call_function(operator.getitem, (g.call_function(getattr, (x, "shape")), 0))
        ratio = g.call_function(operator.truediv, (n, g.call_function(operator.sub, (n, 1))))
        half = g.call_function(operator.truediv, (n, 2))
        return g.call_function(aten.add.Tensor, (g.call_function(aten.mul.Tensor, (x, ratio)),
                                                 half))

    gm = graph(body, 1)
    c = tgc.fx.compile_graph_module(gm)
    c.declared_dynamic = {0: {0}}
    for b in (3, 5, 9):
        x = torch.randn(b, 4)
        assert_same(c(x), x * (b / (b - 1)) + b / 2, atol=1e-6)
    assert tgc.explain(c).compiles == 1, str(tgc.explain(c))
