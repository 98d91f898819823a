"""tgc.compile(opt.step): SGD, Adam and AdamW steps compiled (tgc/_optim.py)
against PyTorch's own steps, on the CPU and, where there is one, a GPU."""

import copy
import warnings

import pytest
import torch

import tgc
from conftest import cuda_ready, requires_cuda, requires_torch2
from tgc._graph import Unsupported

DEVICES = ["cpu"] + (["cuda"] if cuda_ready() else [])


def _model(device, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.LayerNorm(32),
        torch.nn.Linear(32, 4)).to(device)


def _train(model, step, opt, x, steps, scheduler=None):
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = model(x).square().mean()
        loss.backward()
        step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
    return losses


def _compare(kind, device, steps=20, scheduler=None, **options):
    eager_model = _model(device)
    model = copy.deepcopy(eager_model)
    eager_opt = getattr(torch.optim, kind)(eager_model.parameters(), **options)
    opt = getattr(torch.optim, kind)(model.parameters(), **options)
    eager_sched = scheduler(eager_opt) if scheduler else None
    sched = scheduler(opt) if scheduler else None
    step = tgc.compile(opt.step)
    x = torch.randn(8, 16, device=device)
    expected = _train(eager_model, eager_opt.step, eager_opt, x, steps, eager_sched)
    got = _train(model, step, opt, x, steps, sched)
    for p, q in zip(model.parameters(), eager_model.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(torch.tensor(got), torch.tensor(expected), rtol=1e-5,
                               atol=1e-6)
    for p, q in zip(model.parameters(), eager_model.parameters()):
        s, e = opt.state[p], eager_opt.state[q]
        assert s.keys() == e.keys()
        for k in s:
            if isinstance(s[k], torch.Tensor):
                assert s[k].device == e[k].device and s[k].dtype == e[k].dtype, k
                torch.testing.assert_close(s[k], e[k], rtol=1e-5, atol=1e-6)
    return step


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind,options", [
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.1, betas=(0.8, 0.95), eps=1e-6)),
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=1e-2, weight_decay=0.01, amsgrad=True)),
    ("Adam", dict(lr=1e-2, maximize=True)),
    ("SGD", dict(lr=1e-2)),
    ("SGD", dict(lr=1e-2, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("SGD", dict(lr=1e-2, momentum=0.9, dampening=0.1, maximize=True)),
])
def test_steps_match_eager(kind, options, device):
    # Ascending the loss (maximize) amplifies last-bit differences of the
    # gradients from step to step: fewer steps there.
    step = _compare(kind, device, steps=5 if options.get("maximize") else 20, **options)
    e = tgc.explain(step)
    assert e.fallbacks == 0 and not e.graph_breaks
    # On the GPU one compile for the whole group, on the CPU one per
    # parameter shape (4 here); twice that for SGD with momentum (its first
    # step clones the gradient into the buffer).
    per_step = 1 if device == "cuda" else 4
    assert e.compiles == per_step * (2 if options.get("momentum") else 1), str(e)


@pytest.mark.parametrize("device", DEVICES)
def test_learning_rate_schedule_does_not_recompile(device):
    def schedule(opt):
        return torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1.0 / (1 + i))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "lr_scheduler.step() before optimizer.step()"
        step = _compare("AdamW", device, scheduler=schedule, lr=1e-2, weight_decay=0.1)
    assert tgc.explain(step).compiles == (1 if device == "cuda" else 4)


def test_scheduler_wrapped_step_is_recognized():
    model = _model("cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.optim.lr_scheduler.StepLR(opt, step_size=1)  # replaces opt.step
    step = tgc.compile(opt.step)
    assert type(step).__name__ == "CompiledOptimizerStep"
    assert step.opt is opt


def test_closure_and_skipped_parameters():
    model = _model("cpu")
    eager = copy.deepcopy(model)
    opt, eager_opt = (torch.optim.Adam(m.parameters(), lr=0.1) for m in (model, eager))
    step = tgc.compile(opt.step)
    x = torch.randn(8, 16)
    for m, s, o in ((model, step, opt), (eager, eager_opt.step, eager_opt)):
        # The first layer's parameters get no gradient: skipped, no state.
        def closure():
            o.zero_grad(set_to_none=True)
            loss = m[2:](m[:2](x).detach()).square().mean()
            loss.backward()
            return loss
        for _ in range(3):
            loss = s(closure)
        assert isinstance(loss, torch.Tensor)
    for p, q in zip(model.parameters(), eager.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    assert model[0].weight not in opt.state or not opt.state[model[0].weight]


def test_compiled_and_eager_steps_mix():
    """The state is PyTorch's: an eager step continues a compiled run, and
    the state dict loads into a fresh optimizer."""
    model = _model("cpu")
    eager = copy.deepcopy(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    eager_opt = torch.optim.AdamW(eager.parameters(), lr=1e-2)
    step = tgc.compile(opt.step)
    x = torch.randn(8, 16)
    _train(model, step, opt, x, 3)
    _train(model, opt.step, opt, x, 2)
    _train(eager, eager_opt.step, eager_opt, x, 5)
    for p, q in zip(model.parameters(), eager.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    fresh = torch.optim.AdamW(eager.parameters(), lr=1e-2)
    fresh.load_state_dict(opt.state_dict())
    assert float(fresh.state_dict()["state"][0]["step"]) == 5


def test_unsupported_configurations():
    model = _model("cpu")
    opt = torch.optim.RMSprop(model.parameters(), lr=0.1)
    step = tgc.compile(opt.step)
    model(torch.randn(2, 16)).sum().backward()
    with pytest.raises(Unsupported, match="RMSprop is not one of the optimizers"):
        step()
    # fallback=True: PyTorch's step, with a warning and an explained reason.
    before = [p.detach().clone() for p in model.parameters()]
    step = tgc.compile(opt.step, fallback=True)
    with pytest.warns(UserWarning, match="runs eagerly"):
        step()
    assert any(not torch.equal(p, b) for p, b in zip(model.parameters(), before))
    e = tgc.explain(step)
    assert e.fallbacks == 1 and "RMSprop" in str(e)

    # An unsupported tensor in a later group: found before the first group
    # is stepped, so PyTorch's step runs once on untouched state.
    a, b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4).bfloat16()
    a2, b2 = copy.deepcopy(a), copy.deepcopy(b)
    x = torch.randn(2, 4)
    for m in (a, a2):
        m(x).sum().backward()
    for m in (b, b2):
        m(x.bfloat16()).sum().backward()
    opt = torch.optim.AdamW([{"params": a.parameters()}, {"params": b.parameters()}], lr=0.1)
    eager = torch.optim.AdamW([{"params": a2.parameters()}, {"params": b2.parameters()}], lr=0.1)
    with pytest.warns(UserWarning, match="bfloat16 parameter"):
        tgc.compile(opt.step, fallback=True)()
    eager.step()
    for p, q in zip(list(a.parameters()) + list(b.parameters()),
                    list(a2.parameters()) + list(b2.parameters())):
        assert torch.equal(p, q)
        assert float(opt.state[p]["step"]) == 1.0

    half = torch.nn.Linear(4, 4).bfloat16()
    half(torch.randn(2, 4).bfloat16()).sum().backward()
    step = tgc.compile(torch.optim.SGD(half.parameters(), lr=0.1).step)
    with pytest.raises(Unsupported, match="bfloat16 parameter"):
        step()


@requires_cuda
def test_many_parameters_use_one_overlap_guard():
    """On the GPU each step is one function that writes 3 tensors per
    parameter: its overlap guard is one no_alias_outs, not a no_alias per
    pair (which made 16 parameters a 22 s compile). (The CPU compiles a
    function per parameter shape.)"""
    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(5, 3, device="cuda")) for _ in range(24)]
    eager = [torch.nn.Parameter(p.detach().clone()) for p in params]
    opt, eager_opt = torch.optim.AdamW(params, lr=0.1), torch.optim.AdamW(eager, lr=0.1)
    step = tgc.compile(opt.step)
    for _ in range(3):
        for ps, s in ((params, step), (eager, eager_opt.step)):
            for p in ps:
                p.grad = p.detach() * 0.5 + 1
            s()
    for p, q in zip(params, eager):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    guards = "\n".join(g for gs in tgc.explain(step).guards for g in gs)
    assert "alias no other tensor argument" in guards and "does not alias" not in guards


def test_overlapping_out_buffers_run_as_eager():
    """An argument written in place that overlaps another argument (two
    views of one tensor): no specialization accepts the call; it runs as
    eager PyTorch runs it, with the no_alias_outs guard as with no_alias."""
    n = 12

    def f(*ts):
        for t in ts[:n]:
            t.add_(ts[-1])

    compiled = tgc.compile(f)

    def args(base):
        ts = [torch.zeros(8) for _ in range(n)] + [torch.ones(8)]
        ts[0], ts[1] = base[:8], base[4:12]
        return ts

    compiled(*[torch.zeros(8) for _ in range(n)] + [torch.ones(8)])
    got, expected = torch.zeros(16), torch.zeros(16)
    compiled(*args(got))
    f(*args(expected))
    assert torch.equal(got, expected), (got, expected)

    # The argument that is only read is an out buffer too (the same
    # tensor): the later updates read it after the fourth one wrote it.
    def read_overlap(base):
        ts = [torch.zeros(8) for _ in range(n)] + [base]
        ts[3] = base
        return ts

    got, expected = torch.arange(8.0), torch.arange(8.0)
    outs = read_overlap(got)
    compiled(*outs)
    eager_outs = read_overlap(expected)
    f(*eager_outs)
    for g, e in zip(outs, eager_outs):
        assert torch.equal(g, e), (g, e)
    # A partial overlap PyTorch itself refuses: refused, with its reason.
    base = torch.arange(16.0)
    ts = [torch.zeros(8) for _ in range(n)] + [base[2:10]]
    ts[3] = base[:8]
    with pytest.raises(Exception, match="PyTorch refuses them too"):
        compiled(*ts)
    assert tgc.explain(compiled).compiles == 1


@requires_cuda
def test_gpu_step_is_one_kernel_per_parameter():
    """On the GPU each parameter's update (the parameter and both moments
    read and written) is one fused kernel, in place: no copies of the
    parameters or moments."""
    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(64, 32, device="cuda")) for _ in range(4)]
    opt = torch.optim.AdamW(params, lr=0.1)
    step = tgc.compile(opt.step)
    for p in params:
        p.grad = torch.randn_like(p)
    step()
    spec = tgc.explain(step).specializations[0]
    assert "4 kernel(s)" in spec.headline(), spec.headline()


def test_step_counts_follow_the_parameters_stepped():
    """New step counts are views of one tensor, counted with one add; a
    parameter without a gradient in a step keeps its count (the add falls
    back to one per count), as PyTorch's."""
    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(4)) for _ in range(3)]
    eager = [torch.nn.Parameter(p.detach().clone()) for p in params]
    opt, eager_opt = torch.optim.Adam(params, lr=0.1), torch.optim.Adam(eager, lr=0.1)
    step = tgc.compile(opt.step)
    for k in range(4):
        for ps, s in ((params, step), (eager, eager_opt.step)):
            for i, p in enumerate(ps):
                p.grad = None if (k == 2 and i == 0) else p.detach() * 0.5 + 1
            s()
    for p, q in zip(params, eager):
        assert float(opt.state[p]["step"]) == float(eager_opt.state[q]["step"])
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    assert [float(opt.state[p]["step"]) for p in params] == [3.0, 4.0, 4.0]


@requires_torch2
@pytest.mark.parametrize("device", DEVICES)
def test_backend_compiles_the_step(device):
    """torch.compile(opt.step, backend="tgc"): Dynamo's graph of the step
    (its _foreach_ operators, per element) compiled by TGC, against eager."""
    import torch._dynamo

    torch._dynamo.reset()
    eager_model = _model(device)
    model = copy.deepcopy(eager_model)
    eager_opt = torch.optim.AdamW(eager_model.parameters(), lr=1e-2, foreach=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, foreach=True)
    step = torch.compile(opt.step, backend="tgc")
    x = torch.randn(8, 16, device=device)
    expected = _train(eager_model, eager_opt.step, eager_opt, x, 3)
    got = _train(model, step, opt, x, 3)
    torch.testing.assert_close(torch.tensor(got), torch.tensor(expected), rtol=1e-5, atol=1e-6)
    for p, q in zip(model.parameters(), eager_model.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
