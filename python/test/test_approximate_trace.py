"""Approximate traces (tgc._approximate): large CPU products and
convolutions are not computed while tracing. The recorded graph must be
the exact trace's, text for text, and anything that needs the values not
computed (a Python read, a print, a graph break, an error the model
catches) must make the trace compute everything."""

import contextlib
import io

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from tgc import _approximate
from tgc._graph import Unsupported
from tgc._trace_loop import trace
from conftest import assert_same
from models import Encoder  # utils/zoo

try:
    import torchvision
except ImportError:  # pragma: no cover - Debian ships it next to PyTorch
    torchvision = None


def traced(fn, *inputs, approximate=True, breaks=None):
    """tgc._trace_loop.trace of fn over copies of `inputs`, as tgc.compile
    calls it."""
    def run(*xs):
        with torch.no_grad():
            return fn(*xs)
    return trace(run, [x.clone() for x in inputs], [set() for _ in inputs],
                 name="f", approximate=approximate, breaks=breaks)


def same_graph(fn, *inputs, approximated=True, breaks=None):
    """The approximate trace records the exact one's graph; `approximated`:
    whether calls were left uncomputed (else the trace computed all)."""
    a = traced(fn, *inputs, breaks=breaks)
    e = traced(fn, *inputs, approximate=False, breaks=breaks)
    assert e.approximated == 0
    assert a.text == e.text
    assert (a.approximated > 0) == approximated
    return a


@pytest.fixture
def restarts(monkeypatch):
    """The number of approximate traces that had to start again."""
    count = [0]
    exact = _approximate.exact

    def counted(tr):
        count[0] += 1
        return exact(tr)
    monkeypatch.setattr(_approximate, "exact", counted)
    return count


def _models():
    torch.manual_seed(0)
    out = [("encoder", Encoder(vocab=500, d=256, layers=2).eval(),
            (torch.randint(0, 500, (2, 64)),))]
    if torchvision is not None:
        img = torch.randn(2, 3, 112, 112)
        for name in ("resnet18", "mobilenet_v3_small", "squeezenet1_1", "convnext_tiny"):
            out.append((name, getattr(torchvision.models, name)().eval(), (img,)))
    return out


@pytest.mark.parametrize("name,model,inputs", _models(), ids=lambda v: v if isinstance(v, str) else "")
def test_models_record_the_exact_graph(name, model, inputs):
    same_graph(model, *inputs)
    same_graph(model, *inputs, breaks=_breaks())


def _breaks():
    from tgc._breaks import BreakSizes
    return BreakSizes()


@pytest.mark.skipif(torchvision is None, reason="torchvision")
def test_channels_last_convolutions_are_computed():
    # PyTorch's CPU and meta kernels give some channels-last convolutions
    # different strides: only contiguous operands are left uncomputed.
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval().to(memory_format=torch.channels_last)
    img = torch.randn(2, 3, 112, 112).contiguous(memory_format=torch.channels_last)
    same_graph(model, img, approximated=False)
    x, w = torch.randn(1, 64, 16, 16), torch.randn(64, 64, 3, 3)
    x, w = x.contiguous(memory_format=torch.channels_last), w.contiguous(memory_format=torch.channels_last)

    def f(x, w):
        y = F.conv_transpose2d(x, w)
        return y * 2 if y.is_contiguous() else y + 1
    same_graph(f, x, w, approximated=False)


def test_products_of_every_kind():
    torch.manual_seed(0)
    a, b = torch.randn(64, 256), torch.randn(256, 512)
    a3, b3 = torch.randn(8, 64, 256), torch.randn(8, 256, 128)
    w, bias = torch.randn(512, 256), torch.randn(512)
    x1, w1 = torch.randn(4, 64, 200), torch.randn(128, 64, 5)
    xt, wt = torch.randn(2, 64, 16, 16), torch.randn(64, 32, 3, 3)

    def f(a, b, a3, b3, w, bias, x1, w1, xt, wt):
        return (a @ b, torch.mm(a, b), torch.matmul(a3, b3), torch.bmm(a3, b3),
                F.linear(a, w, bias), torch.addmm(bias[:256], a @ b[:, :256].T.T, b[:, :256]),
                torch.baddbmm(torch.zeros(8, 64, 128), a3, b3),
                F.conv1d(x1, w1, padding=2), F.conv_transpose2d(xt, wt, stride=2),
                F.conv_transpose1d(x1, w1.transpose(0, 1).contiguous()),
                b.T.__rmatmul__(b),
                a[:16] @ a3.transpose(1, 2),  # the batch on the right
                a.T.contiguous().T @ b)  # a strided operand

    r = same_graph(f, a, b, a3, b3, w, bias, x1, w1, xt, wt)
    assert r.approximated >= 11


def test_products_of_other_dtypes_are_computed():
    # (float16 products on the CPU fail in PyTorch 1.13, where their meta
    # kernels do not; mixed operands fail too)
    torch.manual_seed(0)
    x, w = torch.randn(256, 256), torch.randn(256, 256)

    def f(x, w):
        try:
            return (x.half() @ w.half()).float()
        except RuntimeError:
            try:
                return x @ w.double()
            except RuntimeError:
                return x @ w

    try:  # (PyTorch 2.x multiplies float16 on the CPU)
        torch.ones(2, 2).half() @ torch.ones(2, 2).half()
        half = True
    except RuntimeError:
        half = False
    # Without float16 products, x @ w, the last product, is left uncomputed.
    r = same_graph(f, x, w, approximated=not half)
    assert r.text.count("tgc.matmul") == 1
    assert ("xf16>" in r.text.split("tgc.matmul")[1].splitlines()[0]) == half


def test_small_products_run_for_real():
    r = traced(lambda a, b: a @ b, torch.randn(8, 8), torch.randn(8, 8))
    assert r.approximated == 0


def test_an_opt_in(monkeypatch):
    a, b = torch.randn(256, 256), torch.randn(256, 256)

    def run(x, y):
        return x @ y
    monkeypatch.delenv("TGC_TRACE_APPROXIMATE", raising=False)
    assert trace(run, [a, b], [set(), set()]).approximated == 0
    monkeypatch.setenv("TGC_TRACE_APPROXIMATE", "1")
    assert trace(run, [a, b], [set(), set()]).approximated == 1


@pytest.fixture
def opted_in(monkeypatch):
    """tgc.compile's traces approximate (TGC_TRACE_APPROXIMATE=1)."""
    monkeypatch.setenv("TGC_TRACE_APPROXIMATE", "1")


def test_a_python_read_computes_everything(restarts):
    a, b = torch.randn(256, 256), torch.randn(256, 256)

    def f(a, b):
        y = a @ b
        return y * y.sum().item()

    errors = []
    for approximate in (True, False):
        with pytest.raises(Unsupported) as e:
            traced(f, a, b, approximate=approximate)
        errors.append(str(e.value))
    assert errors[0] == errors[1] and "item" in errors[0]
    assert restarts[0] == 1


@pytest.mark.parametrize("use", ["slice", "full", "alpha", "narrow", "index", "arange"])
def test_numbers_from_values_not_computed(use, restarts, monkeypatch):
    # A one-element tensor in a number's place: PyTorch reads its value
    # with the tracer out of the way (a graph break in the exact trace too:
    # test_graph_breaks.py::test_a_tensor_value_as_a_number).
    torch.manual_seed(0)
    x, w = torch.randn(256, 256), torch.randn(256, 256)

    def f(x, w):
        y = x @ w
        n = (y[0, 0] > 0).long() * 5 + 1
        if use == "slice":
            return x[n:]
        if use == "full":
            return torch.full((2,), y.sum())
        if use == "alpha":
            return torch.add(x, x, alpha=y[0, 0])
        if use == "narrow":
            return x.narrow(0, 0, n)
        if use == "arange":
            return x[:, :10] + torch.arange(n, n + 10)
        return x.select(0, n)

    # (each a graph break: a number from tensor data)
    r = traced(f, x, w, breaks=_breaks())
    assert r.approximated == 0 and restarts[0] == 1 and r.program is not None
    assert r.text == traced(f, x, w, approximate=False, breaks=_breaks()).text
    with monkeypatch.context() as m:
        m.setenv("TGC_TRACE_APPROXIMATE", "1")
        with torch.no_grad():
            assert_same(tgc.compile(f)(x, w), f(x, w))


def test_a_tensor_operand_of_one_element_stays_uncomputed(restarts):
    x, w = torch.randn(256, 256), torch.randn(256, 256)

    def f(x, w):
        y = x @ w
        return (y - y.mean()) * y.std() + torch.where(y > 0, y, y.amax())
    same_graph(f, x, w)
    assert restarts[0] == 0


def test_a_print_shows_the_values():
    torch.manual_seed(0)
    x, w = torch.randn(256, 256), torch.randn(256, 256)

    def f(x, w):
        x.add_(1)  # updated in place before the restart: put back first
        y = x @ w
        print(y[0, :3])
        return y.relu()

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        r = traced(f, x, w)
    expected = io.StringIO()
    with contextlib.redirect_stdout(expected), torch.no_grad():
        f(x.clone(), w)
    assert out.getvalue() == expected.getvalue()
    assert r.approximated == 0  # the exact trace's graph
    assert r.text == traced(f, x, w, approximate=False).text


def test_an_error_the_model_catches_is_never_of_values_not_computed():
    # cholesky of y y^T fails on the zeros an approximate product gives;
    # on the real values it succeeds, and the model takes that branch.
    torch.manual_seed(0)
    y0, w = torch.randn(64, 512), torch.eye(512)

    def f(y0, w):
        y = y0 @ w
        try:
            return torch.linalg.cholesky(y @ y.T + 1e-3 * torch.eye(64)) * 0 + \
                torch.linalg.cholesky(y @ y.T)
        except RuntimeError:
            return y.sum(0)

    r = traced(f, y0, w)
    assert "cholesky" in r.text and r.approximated == 0
    assert r.text == traced(f, y0, w, approximate=False).text


def test_a_graph_break_on_values_not_computed(restarts, opted_in):
    torch.manual_seed(0)
    x, w = torch.randn(128, 256), torch.randn(256, 256)

    def f(x, w):
        y = x @ w
        return torch.nonzero(y > 0).float().sum(0) + y.sum()

    r = traced(f, x, w, breaks=_breaks())
    assert r.approximated == 0 and restarts[0] == 1
    compiled = tgc.compile(f)
    assert_same(compiled(x, w), f(x, w))


def test_indices_from_a_product(restarts, opted_in):
    # An index out of range raises in eager PyTorch (and a model may catch
    # it); a zero is in range: integer tensors computed from uncomputed
    # values are computed.
    torch.manual_seed(0)
    emb = nn.Embedding(16, 4)
    x, w = torch.randn(64, 256), torch.randn(256, 256)

    def f(x, w):
        try:
            return emb((x @ w).argmax(-1))
        except IndexError:
            return x.sum(1)

    _takes_the_eager_branch(f, x, w, "embedding", restarts)


def _takes_the_eager_branch(f, x, w, op, restarts):
    """f(x, w) catches an error that only the real values raise: the trace
    starts again, records the except branch (no `op`), and the compiled
    call answers as eager does."""
    r = same_graph(f, x, w, approximated=False)
    assert restarts[0] == 1 and op not in r.text
    with torch.no_grad():
        assert_same(tgc.compile(f)(x, w), f(x, w))


def test_a_restart_sees_the_inputs_as_passed(restarts):
    # An approximate trace wrote zeros into its input, then read a number
    # from it: the exact trace starts from the input as it was.
    torch.manual_seed(0)
    x, w, s = torch.randn(256, 256), torch.randn(256, 256), torch.tensor(3.0)

    def f(x, w, s):
        s.mul_((x @ w)[0, 0])
        return x * s.item()

    with pytest.raises(Unsupported):
        traced(f, x, w, s)
    assert restarts[0] == 1 and s.item() == 3.0


def test_a_resized_input_is_put_back(restarts):
    x, w = torch.randn(256, 256), torch.randn(256, 256)

    def f(x, w):
        x.t_()
        y = x @ w
        print(y[0, 0])
        return y

    with contextlib.redirect_stdout(io.StringIO()):
        r = traced(f, x, w)
    assert restarts[0] == 1 and r.approximated == 0


def test_a_swallowed_restart_is_still_taken(restarts):
    x, w = torch.randn(256, 256), torch.randn(256, 256)

    def f(x, w):
        y = x @ w
        try:
            print(y[0, 0])
        except BaseException:  # noqa: BLE001 - the model's own bare except
            pass
        return y

    with contextlib.redirect_stdout(io.StringIO()):
        r = traced(f, x, w)
    assert restarts[0] == 1 and r.approximated == 0


def test_compiled_results_match_eager(opted_in):
    torch.manual_seed(0)
    model = Encoder(vocab=500, d=256, layers=2).eval()
    ids = torch.randint(0, 500, (2, 64))
    with torch.no_grad():
        assert_same(tgc.compile(model)(ids), model(ids))


def test_flop_estimates():
    assert _approximate._flops("matmul", (torch.empty(10, 20), torch.empty(3, 20, 30))) \
        == 2 * 3 * 600 * 10
    assert _approximate._flops("linear", (torch.empty(10, 20), torch.empty(30, 20))) == 2 * 200 * 30
    assert _approximate._flops("addmm", (torch.empty(30), torch.empty(10, 20),
                                         torch.empty(20, 30))) == 2 * 200 * 30
    assert _approximate._flops("conv2d", (torch.empty(1, 3, 8, 8), torch.empty(4, 3, 3, 3))) \
        == 2 * 64 * 108
    assert _approximate._flops("matmul", (torch.empty(5),)) == 0


def test_an_error_only_the_values_raise(restarts, opted_in):
    # The reverse of the case above: zeros factor, the real values do not.
    torch.manual_seed(0)
    x, w = torch.randn(64, 256), torch.randn(256, 512)

    def f(x, w):
        y = (x @ w) / 100
        try:
            return torch.linalg.cholesky(torch.eye(64) - y @ y.T)
        except RuntimeError:
            return y.sum(0)

    _takes_the_eager_branch(f, x, w, "cholesky", restarts)


def test_autocast_is_computed():
    x, w = torch.randn(256, 256), torch.randn(256, 256)

    def f(x, w):
        return (x @ w).relu()

    with torch.autocast("cpu", dtype=torch.bfloat16):
        same_graph(f, x, w, approximated=False)

    def g(x, w):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ w
        return y.float() + 1
    same_graph(g, x, w, approximated=False)


class _LazyCache(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Parameter(torch.randn(256, 256)), nn.Parameter(torch.randn(256, 256))
        self.cache = None

    def forward(self, x):
        if self.cache is None:
            self.cache = self.a @ self.b  # kept after the trace
        return x @ self.cache


def test_a_cache_the_forward_fills_is_computed(restarts, opted_in):
    torch.manual_seed(0)
    m = _LazyCache()
    with torch.no_grad():
        expected = (torch.randn(4, 256) @ (m.a @ m.b))
        compiled = tgc.compile(m)
        x = torch.randn(8, 256)
        assert_same(compiled(x), x @ (m.a @ m.b), rtol=1e-3, atol=1e-3)
        assert_same(m.cache, m.a @ m.b)  # not zeros
        x = torch.randn(5, 256)  # a retrace at another size reads the cache
        assert_same(compiled(x), x @ (m.a @ m.b), rtol=1e-3, atol=1e-3)
    assert restarts[0] >= 1 and expected.shape == (4, 256)


def test_the_models_hooks_see_the_values(restarts):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256)).eval()
    seen = []
    m[0].register_forward_hook(lambda mod, i, o: seen.append(o.sum().item() if False else o.clone()))
    x = torch.randn(64, 256)
    with torch.no_grad():
        traced(m, x)
        expected = m[0](x)
    assert restarts[0] == 1
    assert_same(seen[-1], expected)


def test_a_swallowed_restart_then_a_specialization():
    x, w = torch.randn(256, 256), torch.randn(256, 256)

    def f(x, w):
        y = x @ w
        try:
            str(y[0, 0])
        except BaseException:  # noqa: BLE001
            if len(x) > 3:  # (a size read only the swallowed restart makes)
                return y
        return y * 2

    def run(x, w):
        with torch.no_grad():
            return f(x, w)
    with contextlib.redirect_stdout(io.StringIO()):
        a = trace(run, [x.clone(), w.clone()], [{0}, set()], approximate=True)
        e = trace(run, [x.clone(), w.clone()], [{0}, set()], approximate=False)
    assert a.text == e.text and "?x256" in a.text


class _FilledCache(nn.Module):
    """A cache made during the trace, then filled in place (a static KV
    cache's pattern): the fill must not leave zeros behind."""

    def __init__(self):
        super().__init__()
        self.k = nn.Linear(256, 256)
        self.cache = None

    def forward(self, x):
        if self.cache is None:
            self.cache = torch.zeros(x.shape[0], 256)
        self.cache.copy_(self.k(x))
        return self.cache * 2


def test_a_cache_filled_in_place(restarts, opted_in):
    torch.manual_seed(0)
    m = _FilledCache().eval()
    twin = _FilledCache().eval()
    twin.load_state_dict(m.state_dict())
    x = torch.randn(64, 256)
    with torch.no_grad():
        got = tgc.compile(m, fallback=True)(x)
        expected = twin(x)
    assert restarts[0] >= 1
    assert_same(got, expected, rtol=1e-4, atol=1e-4)
    assert_same(m.cache, twin.cache, rtol=1e-4, atol=1e-4)
