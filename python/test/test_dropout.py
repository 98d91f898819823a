"""Training dropout compiled (python/tgc/_ops/random.py, tgc.philox_uniform):
the masks' rate and scale, the backward reading the forward's mask, new
masks per step that follow torch.manual_seed, one compile for many steps,
eval mode, and dropout outside a training graph staying a graph break.
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


def test_dropout_without_a_training_graph_is_a_graph_break():
    # Under no_grad the inference tracer has no seed: eager dropout, right
    # statistics, and the reason in tgc.explain.
    model = Drop(0.5)
    compiled = tgc.compile(model)
    with torch.no_grad():
        y = compiled(torch.rand(16, 64) + 0.5)
    assert 0.2 < (y != 0).float().mean().item() < 0.8
    assert "dropout" in str(tgc.explain(compiled))


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
