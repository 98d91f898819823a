"""Training through tgc.compile (tgc._autograd, docs/training.md): outputs,
gradients, updated buffers and multi-step loss trajectories against eager
PyTorch, on the CPU and, on the GPU machine, CUDA; the grad-mode and
requires_grad guards; what runs eagerly and why."""

import copy
import math
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from conftest import cuda_ready

DEVICES = ["cpu"] + (["cuda"] if cuda_ready() else [])
TOL = {"cpu": 1e-4, "cuda": 2e-3}  # float32; CUDA's GEMMs use TF32 off, but other orders


def _close(a, b, tol, what):
    assert a.shape == b.shape, what
    err = (a - b).abs().max().item() if a.numel() else 0.0
    scale = max(1.0, b.abs().max().item() if b.numel() else 0.0)
    assert err <= tol * scale, f"{what}: max error {err} (scale {scale})"


def _compare_step(model, inputs, loss_fn, device, steps=1, lr=0.05, compile=tgc.compile):
    """Trains a compiled copy and an eager copy side by side (SGD); checks
    the losses, the gradients and the buffers at every step."""
    ref = copy.deepcopy(model).to(device)
    mine = copy.deepcopy(model).to(device)
    compiled = compile(mine)
    opt_ref = torch.optim.SGD(ref.parameters(), lr=lr)
    opt_mine = torch.optim.SGD(mine.parameters(), lr=lr)
    tol = TOL[device]
    losses = []
    for step in range(steps):
        xs = [x.to(device) for x in inputs(step)]
        loss_ref = loss_fn(ref(*xs), *xs)
        loss_mine = loss_fn(compiled(*xs), *xs)
        assert loss_mine.requires_grad
        _close(loss_mine.detach(), loss_ref.detach(), tol, f"loss at step {step}")
        opt_ref.zero_grad()
        opt_mine.zero_grad()
        loss_ref.backward()
        loss_mine.backward()
        for (name, p), q in zip(ref.named_parameters(), mine.parameters()):
            if p.grad is None:
                assert q.grad is None, name
                continue
            _close(q.grad, p.grad, tol * 10, f"grad of {name} at step {step}")
        for (name, b), c in zip(ref.named_buffers(), mine.buffers()):
            _close(c.double(), b.double(), tol, f"buffer {name} at step {step}")
        opt_ref.step()
        opt_mine.step()
        losses.append(loss_mine.item())
    return compiled, losses


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.LayerNorm(64), nn.GELU(),
                                 nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.net(x)


class MLPWithLabels(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = MLP()

    def forward(self, x, y):
        return self.m(x)


def _ce(out, x, y):
    return F.cross_entropy(out, y)


@pytest.mark.parametrize("device", DEVICES)
def test_mlp_layernorm_cross_entropy_trains_like_eager(device):
    torch.manual_seed(0)
    data = [(torch.randn(32, 16), torch.randint(0, 10, (32,)))] * 20  # learnt by heart

    compiled, losses = _compare_step(MLPWithLabels(), lambda s: data[s], _ce, device, steps=20)
    assert losses[-1] < losses[0]  # it learns
    e = tgc.explain(compiled)
    assert "training specialization 0 (20 calls)" in str(e)
    assert "graph break:" not in str(e), str(e)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_native_layer_norm_output_and_statistics_from_one_pass(dtype):
    # A training graph's layer norm returns its mean and rstd for the
    # backward: the output is computed from those same statistics (two
    # reductions per row), not by a layer norm beside a separate mean and
    # variance (five, in GPT-2's forward row kernels).
    def f(x, w, b):
        return torch.ops.aten.native_layer_norm(x, [8], w, b, 1e-5)

    g = torch.Generator().manual_seed(0)
    x = (torch.randn(4, 3, 8, generator=g) * 5 + 3).to(dtype)
    w, b = torch.randn(8, generator=g).to(dtype), torch.randn(8, generator=g).to(dtype)
    text = tgc.trace_to_mlir(f, x, w, b)
    assert "tgc.layer_norm" not in text and "tgc.var" not in text, text
    assert text.count("tgc.mean ") == 2, text
    got = tgc.compile(f)(x, w, b)
    want = f(x, w, b)
    exact = f(x.double(), w.double(), b.double())
    for g_, e, r in zip(got, want, exact):
        assert g_.dtype == e.dtype and g_.shape == e.shape
        # As close to float64 as eager is (bf16: computed in float).
        tol = 1e-5 if dtype == torch.float32 else 0
        assert (g_.double() - r).abs().max() <= (e.double() - r).abs().max() + tol


@pytest.mark.parametrize("device", DEVICES)
def test_function_of_inputs_that_require_grad(device):
    f = tgc.compile(lambda a, w: (a @ w).relu().sum())
    a = torch.randn(4, 5, device=device, requires_grad=True)
    w = torch.randn(5, 3, device=device, requires_grad=True)
    r = f(a, w)
    assert r.requires_grad and r.grad_fn is not None
    r.backward()
    a2, w2 = a.detach().requires_grad_(), w.detach().requires_grad_()
    (a2 @ w2).relu().sum().backward()
    _close(a.grad, a2.grad, 1e-5, "grad a")
    _close(w.grad, w2.grad, 1e-5, "grad w")


@pytest.mark.parametrize("device", DEVICES)
def test_tf32_flags_key_training_specializations_on_cuda_only(device):
    """The TF32 flags decide how CUDA GEMMs round (docs/python.md,
    "TF32"): a CUDA training specialization is keyed by them, a CPU one is
    not (flipping them recompiled CPU training for nothing)."""
    saved = torch.backends.cuda.matmul.allow_tf32
    f = tgc.compile(lambda a, w: (a @ w).relu().sum())
    a = torch.randn(4, 5, device=device, requires_grad=True)
    w = torch.randn(5, 3, device=device, requires_grad=True)
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        f(a, w).backward()
        torch.backends.cuda.matmul.allow_tf32 = True
        f(a, w).backward()
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    # (The recompile reason names the flags too: count the compiles.)
    compiles = 2 if device == "cuda" else 1
    assert f"and {compiles} training compile(s)" in str(tgc.explain(f)), str(tgc.explain(f))


def test_only_the_inputs_that_require_grad_get_gradients():
    f = tgc.compile(lambda a, b: (a * b).sin().sum())
    a = torch.randn(6, requires_grad=True)
    b = torch.randn(6)
    f(a, b).backward()
    assert b.grad is None
    _close(a.grad, (a * b).detach().cos() * b, 1e-5, "grad a")


def test_several_outputs_and_integer_outputs():
    def fn(x):
        return x.exp(), x.argmax(dim=1), (x * 2).sum(dim=0)

    f = tgc.compile(fn)
    x = torch.randn(3, 4, requires_grad=True)
    e, i, s = f(x)
    assert not i.requires_grad and i.dtype == torch.int64
    assert torch.equal(i, x.detach().argmax(dim=1))
    (e.sum() + (s * s).sum()).backward()
    x2 = x.detach().requires_grad_()
    e2, _, s2 = fn(x2)
    (e2.sum() + (s2 * s2).sum()).backward()
    _close(x.grad, x2.grad, 1e-5, "grad x")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_with_weights_and_ignore_index(reduction):
    w = torch.tensor([0.5, 1.0, 2.0, 1.5])
    y = torch.tensor([0, 3, -100, 2, 1, -100])

    def fn(x):
        out = F.cross_entropy(x, y, weight=w, ignore_index=-100, reduction=reduction)
        return out.sum() if reduction == "none" else out

    f = _loss_and_grad_like_eager(fn, torch.randn(6, 4, requires_grad=True), 1e-5)
    assert "graph break:" not in str(tgc.explain(f))


def _loss_and_grad_like_eager(fn, x, grad_tol):
    """fn compiled: its loss on x and x's gradient against eager's."""
    f = tgc.compile(fn)
    loss = f(x)
    loss.backward()
    x2 = x.detach().requires_grad_()
    ref = fn(x2)
    ref.backward()
    _close(loss.detach(), ref.detach(), 1e-5, "loss")
    _close(x.grad, x2.grad, grad_tol, "grad")
    return f


@pytest.mark.parametrize("device", DEVICES)
def test_one_hot_row_sum_is_its_value(device):
    """nll_loss's backward over a vocabulary sums a one-hot row
    (tgc-decompose folds it to the row's value): targets in range, out of
    range on both sides and ignored; values -0.0 (summed to +0.0), NaN,
    infinite; equal to eager bit for bit, the sign of zero included."""
    t = torch.tensor([0, 9, -100, 10, -1, 3, 3], device=device)
    g = torch.tensor([[1.5], [-0.0], [2.0], [3.0], [4.0], [float("nan")], [float("-inf")]],
                     device=device)

    def fn(g, t):
        hot = (torch.arange(10, device=t.device)[None] == t[:, None]) & (t[:, None] != -100)
        return torch.where(hot, g, torch.zeros((), device=g.device)).sum(1, keepdim=True)

    got, want = tgc.compile(fn)(g, t), fn(g, t)
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    finite = ~torch.isnan(want)
    assert torch.equal(got[finite], want[finite])
    assert torch.equal(torch.signbit(got[finite]), torch.signbit(want[finite]))


@pytest.mark.parametrize("device", DEVICES)
def test_cross_entropy_over_a_vocabulary_with_ignored_targets(device):
    """The one-hot gradient of cross_entropy (folded, above) in a whole
    backward: ignored and in-range targets over 1000 classes."""
    y = torch.randint(0, 1000, (64,), device=device)
    y[::7] = -100

    def fn(x):
        return F.cross_entropy(x, y, ignore_index=-100)

    _loss_and_grad_like_eager(fn, torch.randn(64, 1000, device=device, requires_grad=True), 1e-6)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x, y):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


@pytest.mark.parametrize("device", DEVICES)
def test_batchnorm_cnn_updates_running_statistics_like_eager(device):
    torch.manual_seed(1)
    data = [(torch.randn(4, 3, 8, 8), torch.randint(0, 5, (4,))) for _ in range(5)]
    model = SmallCNN()
    compiled, losses = _compare_step(model, lambda s: data[s], _ce, device, steps=5)
    m = compiled.fn
    assert m.bn1.num_batches_tracked.item() == 5
    # Evaluation mode afterwards: the running statistics are used.
    m.eval()
    with torch.no_grad():
        x = data[0][0].to(device)
        ref = copy.deepcopy(m)
        _close(compiled(x, None), ref(x, None), TOL[device], "eval output")


def test_running_statistics_written_back_in_one_foreach_call(monkeypatch):
    """A training call's mutated inputs (every BatchNorm's running mean,
    variance and counter) are written back with one torch._foreach_copy_
    where PyTorch has it (2.x: a multi-tensor kernel, not a copy_ launch
    each); here a stand-in records the calls, and the buffers still match
    eager's."""
    calls = []

    def foreach_copy(dsts, srcs):
        calls.append(len(dsts))
        for d, s in zip(dsts, srcs):
            d.copy_(s)

    monkeypatch.setattr(torch, "_foreach_copy_", foreach_copy, raising=False)
    torch.manual_seed(1)
    data = [(torch.randn(4, 3, 8, 8), torch.randint(0, 5, (4,))) for _ in range(2)]
    compiled, _ = _compare_step(SmallCNN(), lambda s: data[s], _ce, "cpu", steps=2)
    assert calls == [6, 6], calls  # 2 batch norms x (mean, var, counter), per step
    assert compiled.fn.bn2.num_batches_tracked.item() == 2


CONV_BACKWARD_CASES = [
    # (dims, in channels, out channels, kernel, stride, padding, dilation, groups, bias)
    (2, 3, 8, 3, 1, 1, 1, 1, True),
    (2, 4, 6, 3, 2, 1, 1, 2, False),   # strided, grouped: the input's H and W
    (2, 6, 6, 3, 1, 2, 2, 6, True),    # depthwise, dilated
    (2, 5, 7, (1, 3), (2, 1), (0, 2), 1, 1, True),
    (1, 4, 8, 5, 2, 2, 1, 1, True),    # 1-d: a unit height
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CONV_BACKWARD_CASES, ids=lambda c: "x".join(map(str, c[:4])))
def test_convolution_backward_compiled_like_eager(device, case, monkeypatch):
    """aten.convolution_backward as tgc.conv2d_backward_input /
    _weight and a bias sum (TGC_CONV_BACKWARD=compiled; on CUDA with
    cuDNN it is the default and runs cuDNN's backward operations): every
    gradient against eager's, no graph break, an odd image size whose
    last rows no window reads (their gradient is zero)."""
    monkeypatch.setenv("TGC_CONV_BACKWARD", "compiled")
    dims, cin, cout, k, stride, pad, dil, groups, bias = case
    torch.manual_seed(0)
    conv = (nn.Conv2d if dims == 2 else nn.Conv1d)(
        cin, cout, k, stride=stride, padding=pad, dilation=dil, groups=groups,
        bias=bias).to(device)

    def fn(x):
        return (conv(x) * torch.linspace(-1, 1, 7, device=x.device).sum()).sin().sum()

    f = tgc.compile(fn)
    for batch in (3, 5):
        size = (batch, cin, 11, 10) if dims == 2 else (batch, cin, 13)
        x = torch.randn(*size, device=device, requires_grad=True)
        conv.zero_grad()
        f(x).backward()
        got = [x.grad] + [p.grad.clone() for p in conv.parameters()]
        x2 = x.detach().requires_grad_()
        conv.zero_grad()
        fn(x2).backward()
        want = [x2.grad] + [p.grad for p in conv.parameters()]
        for name, a, b in zip(["input", "weight", "bias"], got, want):
            _close(a, b, TOL[device], f"{name} gradient, batch {batch}")
    text = str(tgc.explain(f))
    assert "graph break:" not in text and "0 call(s) run eagerly" in text, text


@pytest.mark.parametrize("device", DEVICES)
def test_convolution_backward_stays_eager_off_cudnn(device, monkeypatch):
    """By default only cuDNN's convolution backward is compiled; elsewhere
    it is an eager island with its reason (TGC_CONV_BACKWARD)."""
    monkeypatch.setenv("TGC_CONV_BACKWARD", "eager")
    conv = nn.Conv2d(3, 4, 3).to(device)
    f = tgc.compile(lambda x: conv(x).sum())
    x = torch.randn(2, 3, 6, 6, device=device, requires_grad=True)
    f(x).backward()
    assert "TGC_CONV_BACKWARD=eager" in str(tgc.explain(f)), str(tgc.explain(f))
    x2 = x.detach().requires_grad_()
    conv(x2).sum().backward()
    _close(x.grad, x2.grad, TOL[device], "input gradient")


class Block(nn.Module):
    """A pre-norm transformer block (GPT-2's layout)."""

    def __init__(self, d, heads, causal):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads, self.causal = heads, causal

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if self.causal:
            causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
            att = att.masked_fill(~causal, float("-inf"))
        if mask is not None:
            att = att + mask
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, layers=2, ctx=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads, True) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.wte.weight  # tied, as GPT-2

    def forward(self, idx, targets):
        T = idx.shape[1]
        pos = torch.arange(T, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


class TinyBERT(nn.Module):
    def __init__(self, vocab=60, d=32, heads=4, layers=2, ctx=16, classes=3):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.ln = nn.LayerNorm(d)
        self.blocks = nn.ModuleList(Block(d, heads, False) for _ in range(layers))
        self.cls = nn.Linear(d, classes)

    def forward(self, ids, attention, labels):
        T = ids.shape[1]
        x = self.ln(self.tok(ids) + self.pos(torch.arange(T, device=ids.device)))
        mask = (1.0 - attention[:, None, None, :].to(x.dtype)) * -10000.0
        for b in self.blocks:
            x = b(x, mask)
        return F.cross_entropy(self.cls(torch.tanh(x[:, 0])), labels)


def _loss_is_output(out, *xs):
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_gpt2_like_model_trains_like_eager(device):
    torch.manual_seed(2)
    data = [(torch.randint(0, 50, (2, 16)), torch.randint(0, 50, (2, 16)))] * 20
    compiled, losses = _compare_step(TinyGPT(), lambda s: data[s], _loss_is_output, device,
                                     steps=20, lr=0.1)
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("device", DEVICES)
def test_bert_like_model_trains_like_eager(device):
    torch.manual_seed(3)

    def batch(step):
        g = torch.Generator().manual_seed(step % 2)
        ids = torch.randint(0, 60, (3, 12), generator=g)
        att = torch.ones(3, 12, dtype=torch.long)
        att[1, 8:] = 0
        att[2, 5:] = 0
        return ids, att, torch.randint(0, 3, (3,), generator=g)

    compiled, losses = _compare_step(TinyBERT(), batch, _loss_is_output, device, steps=20,
                                     lr=0.1)
    assert losses[-1] < losses[0]


def test_no_grad_calls_use_the_inference_specialization():
    m = MLP()
    c = tgc.compile(m)
    x = torch.randn(4, 16)
    with torch.no_grad():
        out = c(x)
    assert not out.requires_grad
    assert tgc.explain(c).compiles == 1 and not tgc.explain(c).training
    out = c(x)  # grad mode on, parameters require grad: training
    assert out.requires_grad
    assert tgc.explain(c).training
    with torch.no_grad():
        for _ in range(3):
            _close(c(x), m(x), 1e-5, "inference output")
    assert tgc.explain(c).compiles == 1


def test_frozen_parameters_use_the_inference_path():
    m = MLP().requires_grad_(False)
    c = tgc.compile(m)
    out = c(torch.randn(4, 16))
    assert not out.requires_grad
    assert not tgc.explain(c).training
    # Unfreezing is seen on the next call.
    m.net[5].weight.requires_grad_(True)
    out = c(torch.randn(4, 16))
    assert out.requires_grad
    out.sum().backward()
    assert m.net[5].weight.grad is not None and m.net[0].weight.grad is None


def test_native_path_never_serves_a_call_that_needs_gradients():
    f = tgc.compile(lambda a: (a * 3).exp())
    x = torch.randn(5)
    for _ in range(3):
        f(x)  # inference specialization, on the native path from now on
    y = torch.randn(5, requires_grad=True)
    r = f(y)
    assert r.requires_grad
    r.sum().backward()
    _close(y.grad, 3 * (3 * y.detach()).exp(), 1e-5, "grad")


def test_a_lambda_that_calls_a_module_lifts_its_parameters():
    m = MLP()
    f = tgc.compile(lambda x: m(x).square().mean())
    x = torch.randn(8, 16)
    f(x).backward()
    ref = copy.deepcopy(m)
    for p in ref.parameters():
        p.grad = None
    ref(x).square().mean().backward()
    for (name, p), q in zip(ref.named_parameters(), m.parameters()):
        _close(q.grad, p.grad, 1e-4, name)


W = torch.randn(5, 3, requires_grad=True)


def test_a_captured_tensor_that_requires_grad_runs_eagerly_with_a_reason():
    f = tgc.compile(lambda a: (a @ W).sum(), fallback=True)
    a = torch.randn(2, 5)
    W.grad = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(a).backward()
    assert any("outside its arguments and modules" in str(w.message) for w in caught)
    _close(W.grad, a.sum(0)[:, None].expand(5, 3), 1e-5, "grad W")
    assert "outside its arguments and modules" in str(tgc.explain(f))
    strict = tgc.compile(lambda a: (a @ W).sum())
    with pytest.raises(Exception, match="outside its arguments and modules"):
        strict(a)


def test_a_new_batch_size_is_a_new_training_specialization():
    c = tgc.compile(MLP())
    for b in (4, 4, 6):
        c(torch.randn(b, 16)).sum().backward()
    e = tgc.explain(c)
    assert sum(1 for t in e.training if t.startswith("training specialization")) == 2
    assert any("for training" in r for r in e.recompile_reasons)


def test_attribute_changes_are_guarded():
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.k = 2.0

        def forward(self, x):
            return self.lin(x) * self.k

    m = Scale()
    c = tgc.compile(m)
    x = torch.randn(3, 4)
    c(x).sum().backward()
    m.k = 5.0
    out = c(x)
    _close(out.detach(), m.lin(x).detach() * 5.0, 1e-5, "after the change")
    assert any("k == 2.0" in r for r in tgc.explain(c).recompile_reasons)


def test_dropout_is_reproducible_under_manual_seed():
    m = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
    c = tgc.compile(m)
    x = torch.randn(4, 8)
    torch.manual_seed(0)
    a = c(x)  # the first call traces: the trace must not draw numbers
    torch.manual_seed(0)
    b = c(x)
    assert torch.equal(a != 0, b != 0)


def test_dropout_masks_agree_between_forward_and_backward():
    m = nn.Sequential(nn.Linear(32, 32), nn.Dropout(0.5))
    c = tgc.compile(m)
    x = torch.randn(16, 32)
    out = c(x)
    out.sum().backward()
    kept = out.detach() != 0
    assert 0.2 < kept.float().mean().item() < 0.8
    # d(sum out)/d(bias) counts the kept elements of each column, times 2.
    _close(m[0].bias.grad, kept.float().sum(0) * 2.0, 1e-4, "bias grad")


class Cache:
    """An object of tensors (what Hugging Face's caches are)."""

    def __init__(self, k):
        self.k = k
        self.layers = 1


def test_outputs_that_are_objects_and_dataclasses_are_rebuilt():
    import dataclasses

    @dataclasses.dataclass
    class Out:
        loss: torch.Tensor
        cache: Cache
        n: int

    def fn(x):
        return Out(loss=(x * x).sum(), cache=Cache(x.exp()), n=x.shape[0])

    f = tgc.compile(fn)
    x = torch.randn(4, requires_grad=True)
    out = f(x)
    assert isinstance(out, Out) and isinstance(out.cache, Cache) and out.n == 4
    assert out.cache.layers == 1
    (out.loss + out.cache.k.sum()).backward()
    _close(x.grad, 2 * x.detach() + x.detach().exp(), 1e-5, "grad")


def test_inputs_updated_in_place_are_written_back():
    def fn(x, counter):
        counter.add_(1)
        return (x * 2).sum()

    f = tgc.compile(fn)
    x = torch.randn(3, requires_grad=True)
    counter = torch.zeros(())
    f(x, counter).backward()
    f(x, counter).backward()
    assert counter.item() == 2.0
    _close(x.grad, torch.full((3,), 4.0), 1e-6, "grad")


# --- torch.compile(backend="tgc") (PyTorch 2.x: AOTAutograd) ------------------------

needs_dynamo = pytest.mark.skipif(not hasattr(torch, "compile"),
                                  reason="torch.compile is PyTorch 2.x")


def _backend(model):
    return torch.compile(model, backend="tgc")


@needs_dynamo
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", ["mlp", "cnn", "gpt"])
def test_torch_compile_backend_trains_like_eager(device, case):
    import tgc.backend

    torch._dynamo.reset()
    torch.manual_seed(4)
    if case == "mlp":
        model, loss = MLPWithLabels(), _ce
        data = [(torch.randn(32, 16), torch.randint(0, 10, (32,)))] * 5
    elif case == "cnn":
        model, loss = SmallCNN(), _ce
        data = [(torch.randn(4, 3, 8, 8), torch.randint(0, 5, (4,)))] * 5
    else:
        model, loss = TinyGPT(), _loss_is_output
        data = [(torch.randint(0, 50, (2, 16)), torch.randint(0, 50, (2, 16)))] * 5
    compiled, _ = _compare_step(model, lambda s: data[s], loss, device, steps=5,
                                compile=_backend)
    # TGC compiled the forward and backward graphs AOTAutograd made.
    assert sum(tgc.explain(g).compiles for g in tgc.backend.graphs()) >= 2
    del compiled


@needs_dynamo
def test_torch_compile_backend_dynamic_batch_compiles_once():
    import tgc.backend

    torch._dynamo.reset()
    model = MLP()
    c = torch.compile(model, backend="tgc", dynamic=True)
    made = []
    for b in (4, 6, 9, 13):
        c(torch.randn(b, 16)).sum().backward()
        made.append(len(tgc.backend.graphs()))
    assert made[0] == made[-1], made  # no new graph per batch size
    for g in tgc.backend.graphs():
        assert tgc.explain(g).compiles <= 1, str(tgc.explain(g))


def test_autocast_inference_runs_eagerly_and_training_compiles_with_its_casts():
    """torch.autocast casts below the functions the tracer sees: a call
    under it must not reuse (nor make) an inference specialization traced
    without its casts (one traced under it did not even verify: an
    internal error). Inference calls under autocast run eagerly; training
    calls compile (make_fx records the casts), keyed by autocast's state."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    ref = copy.deepcopy(model)
    compiled = tgc.compile(model)
    x = torch.randn(8, 16)
    with torch.no_grad():
        plain = compiled(x)  # compiled, f32; the native path serves it next
        compiled(x)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            low, want = compiled(x), ref(x)
        assert low.dtype == want.dtype == torch.bfloat16
        assert torch.equal(low, want)
        again = compiled(x)
    assert again.dtype == torch.float32
    _close(again, plain, 1e-6, "f32 after autocast")
    text = str(tgc.explain(compiled))
    assert "calls under torch.autocast run eagerly" in text, text

    # Training under autocast: gradients as eager's, to bf16's precision.
    y = torch.randint(0, 4, (8,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss_mine = F.cross_entropy(compiled(x), y)
        loss_ref = F.cross_entropy(ref(x), y)
    loss_mine.backward()
    loss_ref.backward()
    _close(loss_mine.detach(), loss_ref.detach(), 1e-2, "autocast loss")
    for (name, p), q in zip(ref.named_parameters(), model.parameters()):
        _close(q.grad, p.grad, 2e-2, f"autocast grad of {name}")
    # The same call outside autocast is another training specialization.
    out = compiled(x)
    assert out.dtype == torch.float32
    assert "torch.autocast's state differs" in "\n".join(tgc.explain(compiled).training + [
        str(tgc.explain(compiled))])


def test_double_backward_is_an_error_not_a_wrong_answer():
    """The compiled backward is not differentiable: with create_graph=True
    the gradient of the gradient missed its second-order terms silently.
    It raises now; first-order gradients and retain_graph still work."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    compiled = tgc.compile(model)
    x = torch.randn(5, 4, requires_grad=True)
    (g,) = torch.autograd.grad(compiled(x).sum(), x)
    (want,) = torch.autograd.grad(model(x).sum(), x)
    _close(g, want, 1e-5, "first-order gradient")
    with pytest.raises(RuntimeError, match="create_graph=True"):
        torch.autograd.grad(compiled(x).sum(), x, create_graph=True)
    out = compiled(x).sum()
    out.backward(retain_graph=True)
    once = x.grad.clone()
    out.backward()
    _close(x.grad, 2 * once, 1e-6, "retain_graph")


def test_parameters_of_outputs_the_loss_does_not_use_get_no_gradient():
    """Eager leaves .grad None for parameters that only feed outputs the
    loss does not use; the compiled backward returned zeros, and an
    optimizer treats zeros as a step (AdamW's decay and momentum move the
    parameter) but skips None."""
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)

        def forward(self, x):
            return self.a(x), self.b(x)

    torch.manual_seed(0)
    model = Two()
    ref = copy.deepcopy(model)
    compiled = tgc.compile(model)
    x = torch.randn(6, 4)
    compiled(x)[0].sum().backward()
    ref(x)[0].sum().backward()
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        assert (p.grad is None) == (q.grad is None), name
        if q.grad is not None:
            _close(p.grad, q.grad, 1e-5, name)
    assert model.b.weight.grad is None
    # Both outputs used: both get gradients.
    out = compiled(x)
    (out[0].sum() + out[1].sum()).backward()
    assert model.b.weight.grad is not None


def test_an_out_of_range_index_in_a_training_call_is_the_callers_error():
    # The joint trace's IndexError made the module run eagerly for good
    # ("runs eagerly from now on", raised as Unsupported): one bad batch
    # disabled compiled training. It is eager's IndexError, for that call.
    torch.manual_seed(0)
    m = nn.Embedding(6, 3)
    c = tgc.compile(m)
    with pytest.raises(IndexError):
        c(torch.tensor([1, 6]))
    out = c(torch.tensor([1, 2]))
    out.sum().backward()
    assert c._training.eager_reason is None and len(c._training.specs) == 1
    assert m.weight.grad is not None


@pytest.mark.parametrize("name", ["elu_", "selu_", "celu_", "elu", "selu", "celu"])
def test_elu_family_gradients_in_place_and_not(name):
    """PyTorch 1.13's decomposition of elu_backward returned the result
    instead of the gradient where the input was positive when the op ran
    in place: nn.ELU/SELU/CELU(inplace=True) trained with wrong gradients."""
    act = {"elu_": lambda h: F.elu(h, inplace=True), "selu_": torch.selu_,
           "celu_": lambda h: torch.celu_(h, 2.0), "elu": lambda h: F.elu(h, alpha=0.7),
           "selu": torch.selu, "celu": lambda h: torch.celu(h, 2.0)}[name]

    def f(x):
        h = x * 1.0
        r = act(h)
        return (h if name.endswith("_") else r) * torch.arange(5.0)

    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    f(x1).sum().backward()
    tgc.compile(f)(x2).sum().backward()
    torch.testing.assert_close(x2.grad, x1.grad)


def test_a_batch_of_zero_runs_eagerly_once():
    """A batch of 0 through LayerNorm: PyTorch 1.13's decomposition of its
    backward fails there; the call raised Unsupported and every later call
    ran eagerly. That call runs eagerly now, and the next compiles."""
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.LayerNorm(8))
    ref = copy.deepcopy(m)
    c = tgc.compile(m)
    for batch in (4, 0, 4):
        x = torch.randn(batch, 6)
        y, want = c(x), ref(x)
        y.sum().backward()
        want.sum().backward()
        torch.testing.assert_close(y, want)
        for p, q in zip(m.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad)
    assert c.fallbacks <= 1
    assert type(y.grad_fn).__name__ == "CompiledTrainingBackward"


def test_copy_into_a_slice_of_an_intermediate_trains():
    """(x * 1)[:, :3].copy_(y) returned: its backward reads as_strided views
    of whole gradient buffers, graph breaks whose operands are laid out as
    compiled code lays them out (an island check of as_strided made this
    backward fail at backward() for a while on 2026-11-30)."""
    def f(x, y):
        return (x * 1)[:, :3].copy_(y)

    x, y = torch.randn(4, 6, requires_grad=True), torch.randn(4, 3, requires_grad=True)
    x2, y2 = x.detach().clone().requires_grad_(), y.detach().clone().requires_grad_()
    (tgc.compile(f)(x, y) * torch.arange(3.0)).sum().backward()
    (f(x2, y2) * torch.arange(3.0)).sum().backward()
    torch.testing.assert_close(x.grad, x2.grad)
    torch.testing.assert_close(y.grad, y2.grad)
