"""Training through tgc.compile with dynamic sizes (tgc._symbolic,
docs/training.md#sizes): a batch size that changes between steps is traced
once with a symbolic size (PyTorch 2.x), and the losses, gradients and
buffers still match eager at every step."""

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from tgc import _symbolic
from test_training import (DEVICES, MLPWithLabels, SmallCNN, TinyBERT, TinyGPT, _ce,
                           _compare_step, _loss_is_output)

needs_symbolic = pytest.mark.skipif(
    not _symbolic.available(),
    reason="symbolic make_fx needs PyTorch 2.x (1.13 traces a specialization per size)")

SIZES = [4, 6, 9, 5, 12, 7]


def _batch(case, step):
    b = SIZES[step % len(SIZES)]
    g = torch.Generator().manual_seed(step)
    if case == "mlp":
        return torch.randn(b, 16, generator=g), torch.randint(0, 10, (b,), generator=g)
    if case == "cnn":
        return torch.randn(b, 3, 8, 8, generator=g), torch.randint(0, 5, (b,), generator=g)
    if case == "gpt":
        return (torch.randint(0, 50, (b, 16), generator=g),
                torch.randint(0, 50, (b, 16), generator=g))
    ids = torch.randint(0, 60, (b, 12), generator=g)
    att = torch.ones(b, 12, dtype=torch.long)
    att[1, 8:] = 0
    return ids, att, torch.randint(0, 3, (b,), generator=g)


MODELS = {"mlp": (MLPWithLabels, _ce), "cnn": (SmallCNN, _ce),
          "gpt": (TinyGPT, _loss_is_output), "bert": (TinyBERT, _loss_is_output)}


def _specs(compiled):
    return [t for t in tgc.explain(compiled).training if t.startswith("training specialization")]


def _why(compiled) -> str:
    """The specializations and why each was made (assertion messages)."""
    e = tgc.explain(compiled)
    lines = list(e.training) + ["recompile: " + r for r in e.recompile_reasons]
    failed = compiled._training.symbolic_failed
    if failed:
        lines.append("dynamic trace failed: " + failed)
    return "\n".join(lines)


@needs_symbolic
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(MODELS))
def test_a_changing_batch_size_traces_once_more_and_trains_like_eager(device, case):
    """The first call is traced for its sizes; the second, with another
    batch size, makes that dim dynamic (automatic dynamic, as the inference
    path's): no trace for the batch sizes after it."""
    torch.manual_seed(5)
    model, loss = MODELS[case]
    compiled, losses = _compare_step(model(), lambda s: _batch(case, s), loss, device,
                                     steps=len(SIZES) + 2, lr=0.05)
    specs = _specs(compiled)
    assert len(specs) == 2, _why(compiled)
    assert "dynamic dims" in specs[1], _why(compiled)
    # The dynamic specialization's graphs compiled once each (declared
    # dynamic in TGC's own trace of them too).
    dyn = compiled._training.specs[1]
    assert dyn.forward.explain().compiles == 1, str(dyn.forward.explain())
    for b in dyn.backwards.values():
        assert b.explain().compiles == 1, str(b.explain())
    reasons = tgc.explain(compiled).recompile_reasons
    assert sum("for training" in r for r in reasons) == 1, reasons
    assert all(torch.isfinite(torch.tensor(x)) for x in losses)


@needs_symbolic
@pytest.mark.parametrize("device", DEVICES)
def test_dynamic_true_traces_the_first_call_with_symbolic_sizes(device):
    torch.manual_seed(6)
    compiled, _ = _compare_step(TinyGPT(), lambda s: _batch("gpt", s), _loss_is_output,
                                device, steps=4, lr=0.05,
                                compile=lambda m: tgc.compile(m, dynamic=True))
    specs = _specs(compiled)
    assert len(specs) == 1, _why(compiled)
    assert "dynamic dims" in specs[0], _why(compiled)


class Branchy(nn.Module):
    """Reads its batch size and branches on it: the dynamic trace guards
    the branch it took."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        y = self.lin(x)
        if x.shape[0] > 8:
            y = y * 2.0
        return y.view(x.shape[0] * 2, 4)


def test_a_size_branch_is_guarded_not_assumed():
    if not _symbolic.available():
        pytest.skip("symbolic make_fx needs PyTorch 2.x")
    m = Branchy()
    ref = copy.deepcopy(m)
    c = tgc.compile(m)
    for b in (3, 5, 6, 12, 16, 4):
        x = torch.randn(b, 8)
        out, want = c(x), ref(x)
        assert torch.allclose(out, want, atol=1e-5), b
        out.square().sum().backward()
        want.square().sum().backward()
        for p, q in zip(m.parameters(), ref.parameters()):
            assert torch.allclose(p.grad, q.grad, atol=1e-4), b
            p.grad = q.grad = None
    specs = _specs(c)
    # 3 (static), 5.. (dynamic, x <= 8), 12.. (the guard failed: dynamic
    # again, x > 8); 4 is served by the second.
    assert len(specs) == 3, specs
    reasons = tgc.explain(c).recompile_reasons
    assert any("guards" in r for r in reasons), reasons


class LossAndLogits(nn.Module):
    """Returns its logits beside the loss: their gradient is None in the
    backward (zeros of a symbolic shape in the dynamic graph)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16)
        self.head = nn.Linear(16, 20)

    def forward(self, ids, targets):
        logits = self.head(torch.tanh(self.emb(ids)))
        loss = F.cross_entropy(logits.view(-1, 20), targets.view(-1))
        return loss, logits


@pytest.mark.parametrize("device", DEVICES)
def test_unused_outputs_of_a_dynamic_specialization(device):
    if not _symbolic.available():
        pytest.skip("symbolic make_fx needs PyTorch 2.x")
    torch.manual_seed(7)
    m = LossAndLogits().to(device)
    ref = copy.deepcopy(m)
    c = tgc.compile(m)
    for b in (3, 5, 7, 4):
        ids = torch.randint(0, 20, (b, 6), device=device)
        tg = torch.randint(0, 20, (b, 6), device=device)
        loss, logits = c(ids, tg)
        want, want_logits = ref(ids, tg)
        assert logits.shape == want_logits.shape
        assert torch.allclose(loss, want, atol=1e-4)
        loss.backward()
        want.backward()
        for p, q in zip(m.parameters(), ref.parameters()):
            assert torch.allclose(p.grad, q.grad, atol=1e-3), b
            p.grad = q.grad = None
    assert len(_specs(c)) == 2, _specs(c)


def test_pytorch_without_symbolic_shapes_traces_per_size():
    """Where symbolic make_fx is missing (1.13), a new batch size is a new
    training specialization, with its reason."""
    if _symbolic.available():
        pytest.skip("this PyTorch traces dynamic sizes")
    c = tgc.compile(MLPWithLabels())
    for b in (4, 6, 9):
        y = torch.randint(0, 10, (b,))
        _ce(c(torch.randn(b, 16), y), None, y).backward()
    assert len(_specs(c)) == 3
