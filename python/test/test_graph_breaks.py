"""Graph breaks: a call TGC cannot compile runs eagerly between compiled
regions (fullgraph=False, the default), never the whole function."""

import torch
import torch.fx
import torch.nn as nn
import pytest

import tgc
from conftest import assert_same


def cumprod_in_the_middle(x, y):
    a = torch.relu(x) * 2
    b = torch.cumprod(a, 1)  # no TGC handler: a graph break
    return (b + y).sin(), a.sum()


def test_unsupported_op_in_the_middle_is_compiled_around():
    c = tgc.compile(cumprod_in_the_middle)
    x, y = torch.randn(4, 6), torch.randn(6)
    assert_same(c(x, y), cumprod_in_the_middle(x, y))
    e = tgc.explain(c)
    assert e.compiles == 1 and e.fallbacks == 0, e
    assert len(e.graph_breaks) == 1, e.graph_breaks
    b = e.graph_breaks[0]
    assert b.op == "cumprod" and "test_graph_breaks.py:15" in b.where, b
    assert "cumprod" in b.reason
    assert "graph break: cumprod at" in str(e)
    # Two compiled regions around the island, in the graph text.
    assert "@cumprod_in_the_middle_part0" in e.graphs[0]
    assert "@cumprod_in_the_middle_part1" in e.graphs[0]
    assert "// graph break 0: cumprod" in e.graphs[0]
    x2 = torch.randn(4, 6)
    assert_same(c(x2, y), cumprod_in_the_middle(x2, y))
    assert tgc.explain(c).compiles == 1


def test_fullgraph_raises_naming_every_op():
    def f(x):
        return torch.logcumsumexp(torch.cumprod(x, 0), 0) + 1

    with pytest.raises(tgc.Unsupported) as info:
        tgc.compile(f, fullgraph=True)(torch.randn(5))
    text = str(info.value)
    assert "cumprod" in text and "logcumsumexp" in text and "test_graph_breaks.py" in text, text
    c = tgc.compile(f)
    x = torch.randn(5)
    assert_same(c(x), f(x))
    assert [b.op for b in tgc.explain(c).graph_breaks] == ["cumprod", "logcumsumexp"]


def test_graph_breaks_log(capfd):
    tgc.set_logs("graph_breaks")
    try:
        tgc.compile(cumprod_in_the_middle)(torch.randn(2, 3), torch.randn(3))
    finally:
        tgc.set_logs("")
    err = capfd.readouterr().err
    lines = [l for l in err.splitlines() if "graph break" in l]
    assert len(lines) == 1 and "cumprod at" in lines[0], err


@pytest.mark.parametrize("dynamic, most", [(True, 1), (None, 2)])
def test_sizes_across_a_break_stay_dynamic(dynamic, most):
    # The island's result takes the input's sizes: dynamic with
    # dynamic=True, and after one change with dynamic=None; one
    # specialization serves every later size.
    def f(x):
        return torch.cumprod(x.relu() + 1, -1) * 2 + x

    c = tgc.compile(f, dynamic=dynamic)
    for n in (3, 5, 8, 13, 21, 34, 55, 89, 144, 233):
        x = torch.randn(2, n)
        assert_same(c(x), f(x), rtol=1e-4)
    e = tgc.explain(c)
    assert e.compiles <= most and e.fallbacks == 0, e


def test_data_dependent_result_size_is_checked_when_it_runs():
    def f(x):
        idx = torch.nonzero(x > 0)
        return idx.float().mean(0) + x.sum()

    c = tgc.compile(f)
    torch.manual_seed(0)
    for _ in range(6):
        x = torch.randn(5, 3)
        assert_same(c(x), f(x))
    e = tgc.explain(c)
    # First static, then the row count is dynamic: never a stale size.
    assert e.compiles == 2 and any("nonzero" in r for r in e.recompile_reasons), e


@pytest.mark.parametrize("dynamic", [None, True])
def test_python_decision_on_a_break_result_size_is_guarded(dynamic):
    def f(x):
        idx = torch.nonzero(x > 0)
        if idx.shape[0] > 3:  # Python decides on the island's result size
            return x * 2
        return x - 1

    c = tgc.compile(f, dynamic=dynamic)
    torch.manual_seed(1)
    for _ in range(8):
        x = torch.randn(6)
        assert_same(c(x), f(x))


def test_eager_values_of_an_unsupported_dtype_stay_eager():
    # Complex tensors are not compiled: the calls that read them are
    # islands too, and the first real result joins the graph again.
    def f(x):
        z = torch.view_as_complex(x * 2)
        return torch.view_as_real(z * z).relu() + 1

    c = tgc.compile(f)
    x = torch.randn(3, 4, 2)
    assert_same(c(x), f(x))
    ops = [b.op for b in tgc.explain(c).graph_breaks]
    assert ops[0] == "view_as_complex" and "view_as_real" in ops, ops


def test_inplace_update_in_an_island():
    def f(x):
        y = x * 2
        y.cumprod_(0)  # an island updating an intermediate: run on a copy
        return y + x

    c = tgc.compile(f)
    x = torch.randn(6)
    before = x.clone()
    assert_same(c(x), f(x))
    assert_same(x, before)
    assert len(tgc.explain(c).graph_breaks) == 1


def test_inplace_update_of_an_input_is_a_break_written_back():
    def f(x):
        y = x * 3
        x.cumprod_(0)  # an island on a copy; the last region writes x
        return x + 1, y

    c = tgc.compile(f)
    for n in (4, 4, 7):
        x = torch.randn(n)
        y = x.clone()
        out = c(x)
        ref = f(y)
        assert_same(out[0], ref[0])
        assert_same(out[1], ref[1])
        assert_same(x, y)
    assert [b.op for b in tgc.explain(c).graph_breaks] == ["cumprod_"]


def test_inplace_island_on_a_parameter_is_not_a_break():
    lin = torch.nn.Linear(3, 3)

    def f(x):
        lin.weight.cumprod_(0)
        return x + 1

    before = lin.weight.detach().clone()
    # (with grad mode on, eager PyTorch itself refuses the update)
    with torch.no_grad(), pytest.raises(tgc.Unsupported,
                                        match="updates lin.weight in place"):
        tgc.compile(f)(torch.randn(4))
    assert torch.equal(lin.weight, before)  # the trace stopped before the update


def test_random_fill_of_an_input_matches_eager():
    def f(x):
        x.uniform_()
        return x * 2

    c = tgc.compile(f)
    x, y = torch.zeros(5), torch.zeros(5)
    torch.manual_seed(3)
    out = c(x)
    torch.manual_seed(3)
    assert_same(out, f(y))
    assert_same(x, y)


class WithCustomLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 4)

    def forward(self, x):
        h = torch.cumprod(self.a(x), -1)  # a break between two layers
        return self.b(h).softmax(-1)


@torch.no_grad()
def test_module_parameters_after_a_break_are_current():
    torch.manual_seed(0)
    m = WithCustomLayer().eval()
    c = tgc.compile(m)
    x = torch.randn(3, 8)
    assert_same(c(x), m(x))
    with torch.no_grad():
        m.b.weight.mul_(-1)  # a parameter only the second region reads
    assert_same(c(x), m(x))
    assert tgc.explain(c).compiles == 1


@torch.no_grad()
def test_fx_graph_module_with_a_break():
    gm = torch.fx.symbolic_trace(WithCustomLayer().eval())
    c = tgc.compile(gm)
    x = torch.randn(2, 8)
    assert_same(c(x), gm(x))
    assert [b.op for b in tgc.explain(c).graph_breaks] == ["cumprod"]


def test_reference_check_covers_every_region():
    tgc.set_check("reference")
    try:
        c = tgc.compile(cumprod_in_the_middle)
        x, y = torch.randn(3, 4), torch.randn(4)
        assert_same(c(x, y), cumprod_in_the_middle(x, y))
    finally:
        tgc.set_check("")


# Data-dependent Python control flow is still not a break:
# test_api.py::test_data_dependent_control_flow_is_reported (fullgraph=False).


def test_tgc_fullgraph_environment_default(monkeypatch):
    monkeypatch.setenv("TGC_FULLGRAPH", "1")
    with pytest.raises(tgc.Unsupported, match="cumprod"):
        tgc.compile(cumprod_in_the_middle)(torch.randn(2, 3), torch.randn(3))
    c = tgc.compile(cumprod_in_the_middle, fullgraph=False)
    x, y = torch.randn(2, 3), torch.randn(3)
    assert_same(c(x, y), cumprod_in_the_middle(x, y))


def test_a_result_on_another_device_is_moved_there():
    # A transfer inside the function is the same value in the graph (which
    # runs on the inputs' device); a result leaves it on the device eager
    # PyTorch gives it (the meta device here; the CPU beside CUDA inputs in
    # test_gpu.py::test_device_transfers_inside_the_function).
    def f(x):
        m = (x * 2).to("meta")
        return x + 1, m.sum()

    c = tgc.compile(f)
    x = torch.randn(3)
    got, want = c(x), f(x)
    assert_same(got[0], want[0])
    assert got[1].device.type == "meta" and got[1].shape == want[1].shape
    assert tgc.explain(c).graph_breaks == [], tgc.explain(c)


def test_constants_read_by_an_island_or_returned():
    # Constants are recomputed in each region that reads them; one that an
    # island reads or the function returns is computed and returned by the
    # region before (it used to be missing when the island ran).
    def f(x):
        c = torch.tensor([1.0, 2.0, 3.0])
        y = torch.cumprod(c, 0) * x
        return torch.logcumsumexp(y, 0) + c, torch.tensor([4.0, 5.0])

    c = tgc.compile(f)
    x = torch.randn(3)
    assert_same(c(x), f(x))
    assert [b.op for b in tgc.explain(c).graph_breaks] == ["cumprod", "logcumsumexp"]


def test_random_operators_draw_what_eager_draws():
    # torch.rand is a graph break; the trace's own draws do not advance the
    # generator, so the first compiled call draws what eager would have.
    def f(x):
        noise = torch.rand(x.shape)
        return (x + noise).relu(), torch.randn(4).sum()

    c = tgc.compile(f)
    x = torch.randn(8)
    for seed in (0, 1, 1):
        torch.manual_seed(seed)
        want = f(x)
        torch.manual_seed(seed)
        assert_same(c(x), want)
    assert tgc.explain(c).compiles == 1
def test_inputs_of_a_dtype_tgc_does_not_compile_stay_eager():
    # Complex and int16 inputs: every op reading them is an island; what
    # the islands return in a compiled dtype is compiled.
    def f(z, img, y):
        mag = torch.view_as_real(z * 2).pow(2).sum(-1)
        return mag + img.float() / 255 + y.sin()

    c = tgc.compile(f)
    for n in (3, 3, 5):
        z = torch.randn(n, 4, dtype=torch.complex64)
        img = torch.randint(0, 256, (n, 4), dtype=torch.int16)
        y = torch.randn(n, 4)
        assert_same(c(z, img, y), f(z, img, y))
    e = tgc.explain(c)
    assert e.fallbacks == 0, e
    assert {b.op for b in e.graph_breaks} >= {"mul", "float"}, e.graph_breaks
    assert "tgc.sin" in e.graphs[-1]
    # Another dtype of an eager input is another specialization.
    z = torch.randn(3, 4, dtype=torch.complex128)
    img = torch.randint(0, 256, (3, 4), dtype=torch.int16)
    y = torch.randn(3, 4)
    assert_same(c(z, img, y), f(z, img, y))
    assert any("eager value" in r for r in tgc.explain(c).recompile_reasons)


def test_eager_input_returned_and_fullgraph():
    def f(z, y):
        return z, y + 1

    z, y = torch.randn(2, dtype=torch.complex64), torch.randn(2)
    out = tgc.compile(f)(z, y)
    assert out[0] is z
    assert_same(out[1], y + 1)
    with pytest.raises(tgc.Unsupported, match="complex64"):
        tgc.compile(f, fullgraph=True)(z, y)


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("masks", ["none", "padding", "attn"])
def test_multihead_attention_is_traced_through(batch_first, need_weights, masks):
    # F.multi_head_attention_forward is Python code of PyTorch with no
    # handler: its body is traced (no graph break), as Dynamo inlines it.
    torch.manual_seed(0)
    m = torch.nn.MultiheadAttention(32, 4, batch_first=batch_first).eval()
    q = torch.randn(2, 5, 32) if batch_first else torch.randn(5, 2, 32)
    kv = torch.randn(2, 7, 32) if batch_first else torch.randn(7, 2, 32)
    extra = {}
    if masks == "padding":
        extra["key_padding_mask"] = torch.tensor([[False] * 6 + [True], [False] * 7])
    elif masks == "attn":
        extra["attn_mask"] = torch.triu(torch.full((5, 7), float("-inf")), diagonal=3)

    def fn(q, kv):
        return m(q, kv, kv, need_weights=need_weights, **extra)

    f = tgc.compile(fn)
    with torch.no_grad():
        got, expected = f(q, kv), fn(q, kv)
    torch.testing.assert_close(got[0], expected[0], rtol=1e-5, atol=1e-5)
    if need_weights:
        torch.testing.assert_close(got[1], expected[1], rtol=1e-5, atol=1e-5)
    else:
        assert got[1] is None
    assert tgc.explain(f).graph_breaks == []


def test_embedding_with_max_norm_is_a_break():
    # F.embedding renormalizes the weight's rows in place before the
    # lookup; it was compiled as a plain lookup of the old rows.
    import copy

    torch.manual_seed(0)
    e = torch.nn.Embedding(10, 4, max_norm=1.0)
    twin = copy.deepcopy(e)
    ids = torch.tensor([[1, 2, 3], [4, 1, 0]])
    with torch.no_grad():
        f = tgc.compile(lambda i: e(i) * 2)
        got = f(ids)
        expected = twin(ids) * 2
    assert_same(got, expected)
    assert [b.op for b in tgc.explain(f).graph_breaks] == ["embedding"]


@pytest.mark.parametrize("use", ["slice", "narrow", "alpha", "full", "new_full", "tril",
                                 "leaky_relu", "eps", "beta", "as_tensor"])
def test_a_tensor_value_as_a_number(use):
    # PyTorch reads a one-element tensor in a number's place itself, out of
    # the tracer's sight: compiled, the first call's value stayed for
    # every call (x[:n] kept n = 3 when n was 5). Now a graph break.
    torch.manual_seed(0)
    x, w = torch.randn(8, 4), torch.randn(4, 4)

    def f(x, w, n):
        k = ((x @ w)[0, 0] > 0).long() * 4 + 1  # 1 or 5, from the data
        if use == "slice":
            return x[:n] * 2
        if use == "narrow":
            return x.narrow(0, 0, k) * 2
        if use == "alpha":
            return torch.add(x, x, alpha=(x @ w)[0, 0])
        if use == "full":
            return torch.full((3,), (x @ w).sum()) + 1
        if use == "tril":  # (these through ATen's schemas: no Tensor there)
            return torch.tril(x, n - 3)
        if use == "leaky_relu":
            return torch.nn.functional.leaky_relu(x, n.float() / 10)
        if use == "eps":
            return torch.nn.functional.layer_norm(x, (4,), eps=n.float())
        if use == "beta":
            return torch.addmm(w[0], w, w, beta=n.float())
        if use == "as_tensor":  # (more than one element: a constant of data)
            return x * torch.as_tensor(x[0] + 1)
        return x.new_full((2,), n) * 3

    compiled = tgc.compile(f)
    with torch.no_grad():
        for n, sign in ((3, 1), (5, -1), (2, 1)):
            args = (sign * x, w, torch.tensor(n))
            assert_same(compiled(*args), f(*args))


def test_normalize_is_traced_through():
    F = torch.nn.functional
    # F.normalize (Swin V2's cosine attention) is Python code of PyTorch:
    # its norm, clamp_min, expand_as and division are traced, no graph break
    # (a row of zeros divides by eps, as in eager).
    def fn(x, y):
        return (F.normalize(x, dim=-1) @ F.normalize(y, dim=-1).transpose(-2, -1),
                F.normalize(x, p=1.0, dim=1, eps=1e-3))

    f = tgc.compile(fn, fullgraph=True)
    for shape in ((2, 3, 5), (2, 4, 5)):
        x, y = torch.randn(*shape), torch.randn(*shape)
        x[0, 0] = 0
        for got, want in zip(f(x, y), fn(x, y)):
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    assert not tgc.explain(f).graph_breaks


def test_as_strided_of_a_compiled_view_is_not_an_island():
    """as_strided reads the memory under a tensor: an island of it received
    the compiled value laid out anew (dense, from offset 0) and read other
    elements than eager's. Of a compiled view it is no graph break (the
    function runs eagerly with fallback=True); of a tensor with its own
    memory it still is one."""
    import warnings

    x = torch.arange(12.0).reshape(3, 4)
    for fn in (lambda x: x.t().as_strided((2, 2), (1, 2), 1),
               lambda x: x[:, 1:].as_strided((2, 2), (1, 4))):
        with pytest.raises(tgc.Unsupported, match="as_strided reads the memory"):
            tgc.compile(fn)(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same(tgc.compile(fn, fallback=True)(x), fn(x))

    def own(x):
        return (x * 2).as_strided((2, 2), (1, 4)) + 1

    c = tgc.compile(own)
    assert_same(c(x), own(x))
    assert [b.op for b in tgc.explain(c).graph_breaks] == ["as_strided"]
