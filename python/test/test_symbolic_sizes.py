"""Symbolic Python ints (issue 19): sizes read by model code stay symbolic
through arithmetic and torch calls; only Python decisions become guards,
as relations where a relation explains them. Every result is compared with
eager PyTorch, and the compile counts are the point of each test."""

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from tgc._sym import Expr
from conftest import assert_same
from models import ReadsShape  # utils/zoo: the example

# The model tests run on the GPU where there is one (the GPU machine).
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def compiles(f) -> int:
    return tgc.explain(f).compiles


def guards(f, i=-1):
    return tgc.explain(f).guards[i]


SEQS = (7, 9, 16, 33, 64, 100, 5, 12, 2, 47)


@pytest.mark.parametrize("dynamic,most", [(True, 1), (None, 2)])
def test_shape_reads_compile_once(dynamic, most):
    m = ReadsShape().eval().to(DEVICE)
    f = tgc.compile(m, dynamic=dynamic)
    with torch.no_grad():
        for s in SEQS:
            x = torch.randn(2, s, 64, device=DEVICE)
            torch.testing.assert_close(f(x), m(x), rtol=1e-4, atol=1e-5)
    assert compiles(f) == most, tgc.explain(f)


def test_sizes_and_expressions_flow_into_the_graph():
    def f(x):
        B, S, D = x.shape
        y = x.reshape(B * S, D).view(B, S * D)
        return y.view(B, S // 1, D), y.new_zeros(B, S + 1)

    g = tgc.compile(f, dynamic=True)
    for b, s in ((2, 3), (4, 7), (3, 11)):
        x = torch.randn(b, s, 5)
        assert_same(g(x), f(x))
    assert compiles(g) == 1
    text = tgc.explain(g).graphs[0]
    assert "arith.muli" in text and "arith.addi" in text, text


def test_a_branch_on_a_size_is_a_relation_guard():
    def f(x):
        if x.shape[1] > 10:
            return x * 2
        return x - 1

    g = tgc.compile(f, dynamic=True)
    for s in (12, 20, 64):
        x = torch.randn(2, s)
        assert_same(g(x), f(x))
    assert compiles(g) == 1
    gs = [x for x in guards(g) if "comparison" in x]
    assert len(gs) == 1 and gs[0].startswith("x.size(1) > 10"), guards(g)
    assert "test_symbolic_sizes.py" in gs[0]
    # The other branch: a recompile whose reason names the failed relation.
    x = torch.ones(2, 5)
    assert_same(g(x), f(x))
    assert compiles(g) == 2
    reason = tgc.explain(g).recompile_reasons[0]
    assert "x.size(1) > 10" in reason, reason
    # Both specializations now serve their ranges.
    for s in (3, 9, 11, 30):
        x = torch.ones(2, s)
        assert_same(g(x), f(x))
    assert compiles(g) == 2


def test_divisibility_and_equality_guards():
    def f(x, y):
        B, S = x.shape
        assert S % 4 == 0
        if S == y.shape[0]:
            return x.view(B, S // 4, 4).sum(-1), y
        return x.sum(-1), y

    g = tgc.compile(f, dynamic=True)
    for s in (8, 12, 40):
        x, y = torch.randn(3, s), torch.randn(s)
        assert_same(g(x, y), f(x, y))
    assert compiles(g) == 1
    text = "\n".join(guards(g))
    assert "x.size(1) % 4 == 0" in text or "(x.size(1) % 4) == 0" in text, text
    assert "x.size(1) == y.size(0)" in text, text
    x, y = torch.randn(3, 8), torch.randn(12)  # S != y's size: the other branch
    assert_same(g(x, y), f(x, y))
    assert compiles(g) == 2


def test_sizes_zero_and_one_keep_their_specializations():
    def f(x):
        if x.shape[0] == 1:  # implied false for a dynamic size (>= 2)
            return x + 1
        return x * 3

    g = tgc.compile(f, dynamic=True)
    for n in (2, 5, 9):
        x = torch.randn(n, 3)
        assert_same(g(x), f(x))
    assert compiles(g) == 1
    assert not [x for x in guards(g) if "comparison" in x]
    x = torch.randn(1, 3)
    assert_same(g(x), f(x))
    assert compiles(g) == 2


def test_min_max_and_slices_with_symbolic_bounds():
    pos = torch.randn(1, 32, 8)

    def f(x):
        T = x.shape[1]
        n = min(T, 16)
        return x + pos[:, :T], x[:, :n], x[:, T - 2:]

    g = tgc.compile(f, dynamic=True)
    for t in (20, 24, 31):
        x = torch.randn(2, t, 8)
        assert_same(g(x), f(x))
    assert compiles(g) == 1
    # T < 16 takes min's other side: one more compile, then both hold.
    for t in (5, 9, 12, 28):
        x = torch.randn(2, t, 8)
        assert_same(g(x), f(x))
    assert compiles(g) == 2
    # A slice beyond the buffer would be clamped by PyTorch: guarded.
    x = torch.randn(2, 40, 8)
    with pytest.raises(RuntimeError):
        f(x)


def test_factories_and_arange_with_symbolic_sizes():
    def f(x):
        B, S = x.shape
        pos = torch.arange(S)
        z = torch.zeros(B, S)
        o = torch.full((S,), 2.0)
        e = x.new_ones((B, S)).expand(2, B, S)
        return x + pos + z + o, e

    g = tgc.compile(f, dynamic=True)
    for b, s in ((2, 3), (4, 7), (3, 12)):
        x = torch.randn(b, s)
        assert_same(g(x), f(x))
    assert compiles(g) == 1


class KVCacheAttention(nn.Module):
    """One decoder step of a Hugging Face-style KV cache: the new key and
    value are concatenated to the past ones, positions continue from the
    past length."""

    def __init__(self, d=32, heads=4, max_pos=128):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.pos = nn.Embedding(max_pos, d)

    def forward(self, x, past_k, past_v):
        B, T, D = x.shape
        past = past_k.shape[2]
        positions = torch.arange(past, past + T, device=x.device)
        h = x + self.pos(positions)
        qkv = self.qkv(h).view(B, T, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.select(0, 0), qkv.select(0, 1), qkv.select(0, 2)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(D // self.heads), -1)
        y = (att @ v).transpose(1, 2).reshape(B, T, D)
        return self.out(y), k, v


@pytest.mark.parametrize("dynamic,most", [(True, 1), (None, 2)])
def test_generation_loop_with_a_growing_kv_cache(dynamic, most):
    m = KVCacheAttention().eval().to(DEVICE)
    step = tgc.compile(m, dynamic=dynamic)
    torch.manual_seed(0)
    B, heads, hd = 2, 4, 8
    k = torch.randn(B, heads, 3, hd, device=DEVICE)
    v = torch.randn(B, heads, 3, hd, device=DEVICE)
    ke, ve = k, v
    with torch.no_grad():
        for _ in range(12):
            x = torch.randn(B, 1, 32, device=DEVICE)
            y, k, v = step(x, k, v)
            ye, ke, ve = m(x, ke, ve)
            torch.testing.assert_close((y, k, v), (ye, ke, ve), rtol=1e-4, atol=1e-5)
    assert k.shape[2] == 15
    assert compiles(step) == most, tgc.explain(step)


def _specializes(f, sizes, width, reason):
    """f compiles once per size of dim 0 (it was specialized), and the
    guard says why, with this file's line."""
    g = tgc.compile(f, dynamic=True)
    for n in sizes:
        x = torch.randn(n, width)
        assert_same(g(x), f(x))
    assert compiles(g) == len(sizes)
    assert any(reason in x and "test_symbolic_sizes.py" in x for x in guards(g, 0)), \
        guards(g, 0)


def test_a_size_used_as_a_number_is_specialized_with_its_reason():
    def f(x):
        n = x.shape[0]
        out = x
        for _ in range(n):  # a loop count: the number itself
            out = out + 1
        return out

    _specializes(f, (2, 3), 4, "size used as an index or count")


def test_an_expression_used_as_a_number_is_an_equality_guard():
    def f(x):
        B, S = x.shape
        return x.reshape(-1) * float(B * S)

    g = tgc.compile(f, dynamic=True)
    x = torch.randn(2, 6)
    assert_same(g(x), f(x))
    assert any("x.size(0)*x.size(1) == 12" in x for x in guards(g)), guards(g)
    x = torch.randn(3, 4)  # the same product: the same specialization
    assert_same(g(x), f(x))
    assert compiles(g) == 1
    x = torch.randn(3, 5)
    assert_same(g(x), f(x))
    assert compiles(g) == 2


def test_returned_sizes_are_guarded():
    def f(x):
        return x * 2, x.shape, x.shape[0] * 3

    g = tgc.compile(f, dynamic=True)
    for n in (2, 4):
        x = torch.randn(n, 3)
        got, want = g(x), f(x)
        assert_same(got[0], want[0])
        assert got[1] == want[1] and got[2] == want[2]


def test_a_call_that_cannot_take_symbolic_sizes_specializes_them():
    def f(x):
        n = x.shape[0]
        # torch.pow is not routed to the tracer with a SymInt: PyTorch's
        # argument parser rejects it, and the trace restarts with the size
        # read as a number.
        return torch.pow(x, n)

    _specializes(f, (3, 4), 2, "does not take symbolic sizes")


def test_guards_log_names_relation_reason_and_line(capfd):
    def f(x):
        if x.shape[0] >= 6:
            return x + 1
        return x

    tgc.set_logs("guards")
    try:
        tgc.compile(f, dynamic=True)(torch.randn(8, 2))
    finally:
        tgc.set_logs("")
    err = capfd.readouterr().err
    assert "x.size(0) >= 6  (comparison at" in err and "test_symbolic_sizes.py" in err, err


def test_expressions_have_a_normal_form():
    s0, s1 = Expr.size(0, 0), Expr.size(0, 1)
    assert s0 * s1 + s0 == s0 * (s1 + 1)
    assert (s0 * s1 * 4).floordiv(s0 * 2) == s1 * 2
    assert (s0 * 6 + 3).mod(3).constant() == 0
    assert (s0 - s0).constant() == 0
    e = (s0 + 3).floordiv(2)
    assert e.evaluate(lambda a, d: 7) == 5
    assert (s0 + 3).mod(4).evaluate(lambda a, d: 7) == 2
    assert str(s0 * s1 - 2) == "arg0_dim0*arg0_dim1 - 2"


def test_symint_follows_python_int_semantics():
    # Floor division and modulo of negatives, abs, powers: against Python.
    def f(x):
        S = x.shape[0]
        vals = [S - 10, (S - 10) // 3, (S - 10) % 3, abs(S - 10), S ** 2, -S, 3 * S - S]
        return x.new_zeros(vals[4] - S * S + vals[6]), vals[0] + vals[1] + vals[2] + vals[3]

    g = tgc.compile(f, dynamic=True)
    for n in (4, 13):
        x = torch.randn(n)
        got, want = g(x), f(x)
        assert_same(got[0], want[0])
        assert got[1] == want[1]


def test_data_dependent_sizes_are_reported_not_guessed():
    # A boolean mask's size depends on the values: never a guessed shape.
    def f(x):
        return x[x > 0].sum() + x.nonzero().shape[0]

    with pytest.raises(tgc.Unsupported, match="data-dependent|nonzero|index"):
        tgc.compile(f, dynamic=True, fullgraph=True)(torch.randn(8))
    g = tgc.compile(f, dynamic=True, fullgraph=True, fallback=True)
    for n in (8, 9):
        x = torch.randn(n)
        assert_same(g(x), f(x))
    assert tgc.explain(g).fallbacks >= 1
    # By default both are graph breaks: results whose sizes are checked
    # when they run (a change compiles once more, with them dynamic).
    h = tgc.compile(f, dynamic=True)
    torch.manual_seed(0)
    for n in (8, 9, 8, 30, 31):
        x = torch.randn(n)
        assert_same(h(x), f(x))
    e = tgc.explain(h)
    assert e.fallbacks == 0 and len(e.graph_breaks) == 2, e
    # Python read nonzero's size (a number added to a tensor): it is static,
    # and each new count compiles again. Without the read, the sizes that
    # changed become dynamic: two compiles for any data.
    def g(x):
        return x[x > 0].sum() + x.nonzero().float().sum()

    k = tgc.compile(g, dynamic=True)
    for n in (8, 9, 8, 30, 31, 100):
        x = torch.randn(n)
        assert_same(k(x), g(x))
    e = tgc.explain(k)
    assert e.compiles <= 3 and e.fallbacks == 0, e


class _Layer:
    def __init__(self, keys):
        self.keys, self.is_initialized, self.dtype, self.cls = keys, True, keys.dtype, _Layer


class _Cache:
    """An object of tensors and values, like transformers 5's DynamicCache."""

    def __init__(self, layers):
        self.layers, self.offloading = layers, False


def test_objects_of_tensors_are_rebuilt_as_results():
    def f(x):
        return x.sum(), _Cache([_Layer(x * 2), _Layer(x[:, 1:] + 1)])

    g = tgc.compile(f, dynamic=True)
    for n in (3, 5):
        x = torch.randn(n, 4)
        (s, c), (s2, c2) = g(x), f(x)
        assert type(c) is _Cache and type(c.layers[0]) is _Layer and c.layers[1].cls is _Layer
        assert c.offloading is False and c.layers[0].dtype == torch.float32
        assert_same((s, c.layers[0].keys, c.layers[1].keys), (s2, c2.layers[0].keys, c2.layers[1].keys))
    assert compiles(g) == 1


def test_returned_sizes_are_computed_per_call():
    # A function that returns sizes (HF caches keep the sequence length;
    # Dynamo graphs return SymInts): computed from the call's input sizes,
    # not specialized (it used to recompile per size: HF Mistral).
    def f(x):
        B, S = x.shape
        return x * 2, B * S, x.shape, S - 1

    c = tgc.compile(f, dynamic=True)
    for s in (5, 9, 17, 33):
        x = torch.randn(3, s)
        got, want = c(x), f(x)
        assert_same(got[0], want[0])
        assert got[1:] == want[1:] and isinstance(got[2], torch.Size)
    assert tgc.explain(c).compiles == 1


def test_sizes_as_data_in_arithmetic_stay_symbolic():
    # x * S, S - 1, x / (B * S), S // 3, S % 4: the size is a value the graph
    # computes from the input sizes, not a constant (one compile for every
    # S; it used to specialize S).
    def f(x):
        B, S = x.shape
        return x * S + (S - 1), x / (B * S), (S // 3) - x, x * (S % 4)

    c = tgc.compile(f, dynamic=True, fullgraph=True)
    for s in (5, 9, 17, 33, 2):
        x = torch.randn(3, s)
        assert_same(c(x), f(x))
    xi = torch.randint(-5, 5, (4, 7))
    assert_same(c(xi), f(xi))
    e = tgc.explain(c)
    assert e.compiles == 2, e  # one per dtype


@pytest.mark.parametrize("mode, align_corners", [("bicubic", False), ("bilinear", False),
                                                 ("bilinear", True), ("bicubic", True)])
def test_interpolate_to_symbolic_sizes(mode, align_corners):
    # HF ViT's interpolate_pos_encoding resizes a static grid to sizes
    # computed from the image's: the indices and weights are computed in the
    # graph, one compile for every output size.
    torch.manual_seed(0)
    grid = torch.randn(1, 4, 7, 7)

    def f(x):
        H, W = x.shape[2], x.shape[3]
        q = F.interpolate(grid, size=(H // 2, W // 3), mode=mode, align_corners=align_corners)
        return x[:, :4, : H // 2, : W // 3] + q

    c = tgc.compile(f, dynamic=True, fullgraph=True)
    for h, w in ((10, 9), (14, 21), (28, 42), (6, 30), (40, 12)):
        x = torch.randn(2, 5, h, w)
        assert_same(c(x), f(x))
    assert tgc.explain(c).compiles == 1


def test_convolution_output_sizes_are_expressions():
    # (H + 2p - d(k-1) - 1) // s + 1: a decision on a conv output's size is
    # a relation guard on the input sizes (it used to specialize them, one
    # compile per image size): one compile per branch taken.
    torch.manual_seed(0)
    conv = nn.Conv2d(3, 8, 4, stride=4).eval()

    def f(x):
        y = conv(x)
        B, C, H, W = y.shape
        if H * W > 20:
            return y.flatten(2).mean(-1)
        return y.view(B, C, H * W).amax(-1)

    c = tgc.compile(f, dynamic=True, fullgraph=True)
    with torch.no_grad():
        for s in (24, 28, 32, 40, 16, 12):
            x = torch.randn(2, 3, s, s + 4)
            assert_same(c(x), f(x))
    e = tgc.explain(c)
    assert e.compiles == 2, e
    assert "> 20 failed" in e.recompile_reasons[0], e.recompile_reasons


def test_flatten_and_pad_sizes_are_expressions():
    # ViT's patch embedding: conv(x).flatten(2) has (H//16)*(W//16) tokens;
    # a decision on that count (HF ViT compares it with the position table)
    # is a relation guard. flatten used to make the count an opaque size,
    # which specialized the image size: one compile per size.
    torch.manual_seed(0)
    proj = nn.Conv2d(3, 8, 16, stride=16).eval()
    pos = torch.randn(1, 17, 8)

    def f(x):
        h, w = x.shape[2], x.shape[3]
        e = F.pad(proj(x).flatten(2).transpose(1, 2), (0, 0, 1, 0))
        if e.shape[1] == pos.shape[1] and h == w:
            return e + pos
        p = pos[:, 1:].reshape(1, 4, 4, 8).permute(0, 3, 1, 2)
        p = F.interpolate(p, size=(h // 16, w // 16), mode="bicubic", align_corners=False)
        return e[:, 1:] + p.permute(0, 2, 3, 1).reshape(1, -1, 8)

    c = tgc.compile(f, dynamic=True, fullgraph=True)
    with torch.no_grad():
        for s in (64, 48, 80, 96, 64, 112):
            x = torch.randn(2, 3, s, s)
            assert_same(c(x), f(x))
    assert tgc.explain(c).compiles == 2, tgc.explain(c).recompile_reasons


@pytest.mark.skipif(not hasattr(torch, "sym_sum"), reason="torch.sym_sum: PyTorch >= 2.6")
def test_sym_sum_of_sizes_stays_symbolic():
    g = torch.fx.Graph()
    x = g.placeholder("x")
    n = g.call_function(torch.ops.aten.sym_size.int, (x, 0))
    total = g.call_function(torch.sym_sum, ([n, n, 1],))
    g.output(g.call_function(torch.ops.aten.new_ones.default, (x, [total])))
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    c = tgc.compile(gm, dynamic=True)
    for k in (3, 5, 8):
        x = torch.randn(k)
        assert_same(c(x), torch.ones(2 * k + 1))
    assert tgc.explain(c).compiles == 1


def test_floor_division_by_an_opaque_size_does_not_escape():
    # Swin's x.size(0) // num_windows with a size TGC cannot express (a
    # ceil_mode pooling output here): the divisor's sign was evaluated on
    # the input sizes only and OpaqueSize escaped the tracer (a crash).
    def f(x):
        n = F.max_pool2d(x, 2, ceil_mode=True).shape[2]
        return x[..., : x.shape[3] // n] * 2

    c = tgc.compile(f, dynamic=True)
    for h in (5, 7, 9):
        x = torch.randn(2, 3, h, 12)
        assert_same(c(x), f(x))


def test_a_slice_to_a_size_less_a_constant():
    # The arena's size has a negative term ((s0 - 2) * s1 = s1 * -2 + s0 * s1),
    # which the CPU's checked size computation took for an overflow: every
    # call failed ("the arena of intermediate values ... does not fit in a
    # 64-bit integer").
    def f(x):
        T = x.shape[-1]
        return x[..., 1:T - 1] + 1

    for dynamic in (True, None):
        c = tgc.compile(f, dynamic=dynamic)
        for s in ((2, 8), (3, 9), (5, 3), (2, 2)):
            x = torch.randn(*s)
            torch.testing.assert_close(c(x), f(x))


def test_a_size_with_a_floor_modulo_of_a_negative_number():
    # (-W) % 4 in a size: the CPU arena materialized the affine `mod` as a
    # truncating remainder ((-6) mod 4 = -2): an arena too small, a heap
    # overflow (malloc aborts) or wrong values.
    import torch.nn.functional as F

    def f(x):
        H, W = x.shape
        ph, pw = (-H) % 4, (-W) % 4
        x = F.pad(x, (0, pw, 0, ph))
        return x.view((H + ph) // 4, 4, (W + pw) // 4, 4).permute(0, 2, 1, 3).reshape(-1, 16).sum(0)

    def g(x):
        H, W = x.shape
        pw = (-W) % 4
        return F.pad(x, (0, pw)).view(H, (W + pw) // 4, 4).transpose(0, 1) + 0

    c, d = tgc.compile(f, dynamic=True), tgc.compile(g, dynamic=True)
    for s in ((5, 6), (5, 7), (8, 8), (9, 13), (64, 6)):
        x = torch.randn(*s)
        torch.testing.assert_close(c(x), f(x))
        torch.testing.assert_close(d(x), g(x))


@pytest.mark.parametrize("dynamic", [True, None])
def test_always_empty_slices_and_reshapes_of_empty_tensors(dynamic):
    # x[T:] with T the size: "the last 0 elements" became a slice from 0,
    # a result whose declared size 0 the verifier rejected. reshape(B, -1, 2)
    # of a (B, 0) tensor: its `?` could not be inferred (any size would do).
    fs = [lambda x: x[x.shape[0]:] + 1, lambda x: x[:, x.shape[1]:] * 2,
          lambda x: torch.cat([x[x.shape[0]:], x[:1]]) + 1,
          lambda x: x[:, :0].reshape(x.shape[0], -1, 2) + 1]
    for f in fs:
        c = tgc.compile(f, dynamic=dynamic)
        for s in ((6, 3), (4, 5), (2, 2)):
            x = torch.randn(*s)
            torch.testing.assert_close(c(x), f(x))


def test_decisions_on_floor_divisions_that_can_be_negative_are_guarded():
    """(T - 5) // 2 is negative for T < 5: a product with it has no lower
    bound from its factors'. The tracer took ((T - 5) // 2) ** 2 >= 1 and
    B * ((T - 5) // 2) >= -4 for always true, recorded no guard, and later
    sizes took the traced branch (found by a helper's sweep)."""
    def square(x):
        k = (x.shape[0] - 5) // 2
        return x * 2 if k * k >= 1 else x * 3

    def product(x):
        B, T = x.shape
        return x * 2 if B * ((T - 5) // 2) >= -4 else x * 3

    c = tgc.compile(square, dynamic=True)
    for n in (9, 5, 6, 9):
        x = torch.ones(n)
        assert torch.equal(c(x), square(x))
    c = tgc.compile(product, dynamic=True)
    for shape in ((2, 7), (10, 2), (2, 7)):
        x = torch.ones(shape)
        assert torch.equal(c(x), product(x))
