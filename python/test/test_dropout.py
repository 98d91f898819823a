"""Training dropout compiled (python/tgc/_ops/random.py, tgc.philox_uniform):
the masks' rate and scale, the backward reading the forward's mask, new
masks per step that follow torch.manual_seed, one compile for many steps,
eval mode; dropout outside a training graph (under no_grad, in a
function) with a seed drawn per call, its feature and alpha forms.
The masks are TGC's own, not eager's: tests check what must hold of any
correct dropout, not eager's numbers."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from conftest import requires_cuda


class Drop(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(0.5, 1.5, 64))
        self.drop = nn.Dropout(p)

    def forward(self, x):
        return self.drop(x * self.w)


def _step(compiled, x):
    y = compiled(x)
    y.sum().backward()
    return y.detach()


def _check_mask(model, x, y, p):
    """y is x * w / (1 - p) where kept and 0 elsewhere; the gradient of
    y.sum() with respect to w is the sum of x / (1 - p) over the kept
    positions: the backward used the forward's mask."""
    kept = y != 0
    full = (x * model.w.detach()) / (1 - p)
    torch.testing.assert_close(y[kept], full[kept])
    want = (x * kept / (1 - p)).sum(0)
    torch.testing.assert_close(model.w.grad, want, rtol=1e-5, atol=1e-4)
    return kept.float().mean().item()


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_rate_scale_and_backward(p):
    torch.manual_seed(0)
    model = Drop(p)
    compiled = tgc.compile(model)
    x = torch.rand(2048, 64) + 0.5  # no zeros of its own
    y = _step(compiled, x)
    rate = _check_mask(model, x, y, p)
    # 131072 draws: the kept fraction is within 5 standard deviations.
    sd = (p * (1 - p) / y.numel()) ** 0.5
    assert abs(rate - (1 - p)) < 5 * sd, rate
    lines = "\n".join(tgc.explain(compiled).training)
    assert "graph break" not in lines, lines


def test_new_masks_per_step_reproducible_under_manual_seed():
    def run():
        torch.manual_seed(123)
        model = Drop(0.5)
        compiled = tgc.compile(model)
        x = torch.rand(64, 64) + 0.5
        masks = []
        for _ in range(4):
            model.zero_grad()
            masks.append(_step(compiled, x) != 0)
        return masks, compiled

    first, compiled = run()
    second, _ = run()
    for a, b in zip(first, second):
        assert torch.equal(a, b)
    assert not torch.equal(first[0], first[1])  # a new seed each step
    # The seed is an input, not a guarded value: one compile for all steps.
    assert "(4 calls)" in tgc.explain(compiled).training[0]


def test_eval_mode_and_zero_rate_are_identity():
    torch.manual_seed(0)
    model = Drop(0.3).eval()
    x = torch.rand(8, 64)
    compiled = tgc.compile(model)
    y = _step(compiled, x)
    torch.testing.assert_close(y, x * model.w.detach())
    model = Drop(0.0)
    compiled = tgc.compile(model)
    torch.testing.assert_close(_step(compiled, x), x * model.w.detach())


def test_functional_dropout_in_a_larger_graph():
    # Two dropouts in one graph draw different masks (their own streams).
    torch.manual_seed(0)
    lin = nn.Linear(32, 32)

    def f(x):
        a = F.dropout(F.relu(lin(x)), 0.5, training=True)
        b = F.dropout(torch.ones_like(a), 0.5, training=True)
        return a, b

    compiled = tgc.compile(f)
    a, b = compiled(torch.randn(256, 32))
    (a.sum() + b.sum()).backward()
    assert not torch.equal(b != 0, a != 0)
    assert abs((b != 0).float().mean().item() - 0.5) < 0.05


def _scale(p, dtype=torch.float32):
    """1 / (1 - p) as PyTorch's CPU dropout rounds it (its noise tensor)."""
    return torch.ones((), dtype=dtype).div_(1.0 - p)


def _no_breaks(compiled, compiles=1):
    e = tgc.explain(compiled)
    assert e.compiles == compiles and not e.graph_breaks and e.fallbacks == 0, str(e)


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_without_a_training_graph_compiles(p):
    # A module in train mode called under no_grad: the inference trace
    # takes a seed the call path draws per call (CapturedTensors.for_call).
    torch.manual_seed(0)
    model = Drop(p)
    compiled = tgc.compile(model)
    x = torch.rand(2048, 64) + 0.5
    with torch.no_grad():
        ys = [compiled(x) for _ in range(3)]
        full = x * model.w * _scale(p)
    for y in ys:
        kept = y != 0
        assert torch.equal(y[kept], full[kept])  # PyTorch's rounding of the scale
        sd = (p * (1 - p) / y.numel()) ** 0.5
        assert abs(kept.float().mean().item() - (1 - p)) < 5 * sd
    assert not torch.equal(ys[0] != 0, ys[1] != 0)  # a new seed per call
    _no_breaks(compiled)


def test_inference_masks_follow_manual_seed():
    model = Drop(0.5)
    compiled = tgc.compile(model)
    x = torch.rand(64, 64) + 0.5
    runs = []
    for _ in range(2):
        torch.manual_seed(7)
        with torch.no_grad():
            runs.append([compiled(x) != 0 for _ in range(3)])
    for a, b in zip(*runs):
        assert torch.equal(a, b)
    _no_breaks(compiled)


def test_feature_and_alpha_dropout():
    torch.manual_seed(0)
    x = torch.rand(64, 16, 4, 4) + 0.5
    d2 = tgc.compile(nn.Dropout2d(0.5))
    with torch.no_grad():
        y = d2(x)
    # A whole channel of a sample is dropped or kept.
    planes = (y != 0).flatten(2)
    assert torch.equal(planes.all(-1), planes.any(-1))
    kept = y != 0
    assert torch.equal(y[kept], (x * _scale(0.5))[kept])
    assert 0.4 < planes.all(-1).float().mean().item() < 0.6
    _no_breaks(d2)

    p, alpha = 0.2, 1.7580993408473766
    ad = tgc.compile(nn.AlphaDropout(p))
    with torch.no_grad():
        y = ad(x)
    a = 1.0 / ((alpha * alpha * p + 1) * (1 - p)) ** 0.5
    keep = x * a + alpha * a * p  # noise 1: x * a + b, b = alpha a p
    drop = torch.full_like(x, -alpha * a + alpha * a * p)
    is_kept = torch.isclose(y, keep, rtol=1e-6, atol=1e-6)
    assert torch.all(is_kept | torch.isclose(y, drop, rtol=1e-6, atol=1e-6))
    assert abs(is_kept.float().mean().item() - (1 - p)) < 0.02
    _no_breaks(ad)


def test_dropout_edge_rates_and_in_place():
    x = torch.tensor([1.0, float("nan"), float("inf"), -2.0])

    def all_dropped(x):
        return F.dropout(x, 1.0, training=True)  # x * 0, as PyTorch

    c = tgc.compile(all_dropped)
    torch.testing.assert_close(c(x), all_dropped(x), equal_nan=True)
    c = tgc.compile(lambda x: F.dropout(x, 0.0, training=True))
    torch.testing.assert_close(c(x), x, equal_nan=True)

    def in_place(x):
        y = x * 2
        F.dropout(y, 0.5, training=True, inplace=True)
        return y

    torch.manual_seed(0)
    c = tgc.compile(in_place)
    x = torch.rand(4096) + 0.5
    y = c(x)
    kept = y != 0
    assert torch.equal(y[kept], (x * 2 * 2)[kept])
    assert 0.45 < kept.float().mean().item() < 0.55
    _no_breaks(c)


def test_dropout_after_a_graph_break():
    # The seed reaches a region after an eager island (the program path).
    def f(x):
        a = torch.cumprod(x, 1)  # no TGC handler: a graph break
        return F.dropout(a, 0.5, training=True), F.dropout(x, 0.5, training=True)

    c = tgc.compile(f)
    x = torch.rand(256, 4) + 0.5
    torch.manual_seed(3)
    a1, b1 = c(x)
    a2, b2 = c(x)
    torch.manual_seed(3)
    a3, b3 = c(x)
    assert torch.equal(a1, a3) and torch.equal(b1, b3)
    assert not torch.equal(a1 != 0, a2 != 0)
    kept = a1 != 0
    assert torch.equal(a1[kept], (torch.cumprod(x, 1) * 2)[kept])
    assert len(tgc.explain(c).graph_breaks) == 1


def test_reference_check_sees_the_calls_seed():
    # TGC_CHECK=reference reruns the graph on the interpreter with the
    # tensors the call used: the seed drawn for it, not the trace's (a
    # false "differs from the reference" before).
    f = tgc.compile(lambda x: F.dropout(x * 2, 0.5, training=True))
    x = torch.rand(256) + 0.5
    tgc.set_check("reference")
    try:
        masks = [f(x) != 0 for _ in range(3)]
    finally:
        tgc.set_check("")
    assert not torch.equal(masks[0], masks[1])


def test_rand_in_a_model_is_still_a_graph_break():
    # torch.rand has no TGC handler: eager numbers, from eager's generator.
    def f(x):
        return x + torch.rand(x.shape)

    c = tgc.compile(f)
    torch.manual_seed(5)
    got = c(torch.zeros(8))
    torch.manual_seed(5)
    assert torch.equal(got, f(torch.zeros(8)))


@requires_cuda
def test_dropout_on_the_gpu():
    torch.manual_seed(0)
    model = Drop(0.25).cuda()
    compiled = tgc.compile(model)
    x = torch.rand(4096, 64, device="cuda") + 0.5
    y = _step(compiled, x)
    rate = _check_mask(model, x, y, 0.25)
    assert abs(rate - 0.75) < 0.01, rate
    lines = "\n".join(tgc.explain(compiled).training)
    assert "graph break" not in lines, lines


needs_sdpa = pytest.mark.skipif(not hasattr(F, "scaled_dot_product_attention"),
                                reason="scaled_dot_product_attention is PyTorch 2.x")


@needs_sdpa
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_dropout(device, causal):
    # With v the identity, the output is the dropped attention weights:
    # PyTorch's softmax times 0 or 1 / (1 - p).
    torch.manual_seed(0)
    s, p = 64, 0.25
    q, k = torch.randn(2, 4, s, 16, device=device), torch.randn(2, 4, s, 16, device=device)
    v = torch.eye(s, device=device).expand(2, 4, s, s)

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=causal)

    c = tgc.compile(f)
    with torch.no_grad():
        y = c(q, k, v)
        y2 = c(q, k, v)
    w = torch.softmax((q @ k.transpose(-2, -1)) / 4.0 + (
        torch.full((s, s), float("-inf"), device=device).triu(1) if causal else 0), -1)
    kept = y != 0
    torch.testing.assert_close(y[kept], (w / (1 - p))[kept], rtol=1e-4, atol=1e-6)
    live = w != 0  # (the causal mask's zeros are not dropout's)
    rate = kept[live].float().mean().item()
    assert abs(rate - (1 - p)) < 0.02, rate
    assert not torch.equal(y != 0, y2 != 0)
    _no_breaks(c)


@pytest.mark.skipif(not hasattr(torch, "compile"), reason="torch.compile is PyTorch 2.x")
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
def test_torch_compile_backend_dropout(device):
    # AOTAutograd's forward graph (native_dropout or bernoulli) takes the
    # per-call seed too; the backward reads the saved mask. Under no_grad,
    # Dynamo's graph calls dropout itself.
    import tgc.backend

    torch._dynamo.reset()
    torch.manual_seed(0)
    model = Drop(0.25).to(device)
    c = torch.compile(model, backend="tgc")
    x = torch.rand(2048, 64, device=device) + 0.5
    y = _step(c, x)
    rate = _check_mask(model, x, y, 0.25)
    assert abs(rate - 0.75) < 0.01, rate
    y2 = _step(c, x)
    assert not torch.equal(y != 0, y2 != 0)
    with torch.no_grad():
        y3 = c(x)
    kept = y3 != 0
    torch.testing.assert_close(y3[kept], (x * model.w / 0.75)[kept])
    for g in tgc.backend.graphs():
        e = tgc.explain(g)
        assert not e.graph_breaks and e.fallbacks == 0, str(e)
