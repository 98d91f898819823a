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
from tgc._trace import trace
from conftest import assert_same
from models import Encoder  # utils/zoo

try:
    import torchvision
except ImportError:  # pragma: no cover - Debian ships it next to PyTorch
    torchvision = None


def traced(fn, *inputs, approximate=True, breaks=None):
    """tgc._trace.trace of fn over copies of `inputs`, as tgc.compile
    calls it."""
    def run(*xs):
        with torch.no_grad():
            return fn(*xs)
    return trace(run, [x.clone() for x in inputs], [set() for _ in inputs],
                 name="f", approximate=approximate, breaks=breaks)


def same_graph(fn, *inputs, approximated=True):
    a = traced(fn, *inputs)
    e = traced(fn, *inputs, approximate=False)
    assert e.approximated == 0
    assert a.text == e.text
    if approximated:
        assert a.approximated > 0  # (else the test would not test it)
    return a


def _models():
    torch.manual_seed(0)
    out = [("encoder", Encoder(vocab=500, d=256, layers=2).eval(),
            (torch.randint(0, 500, (2, 64)),))]
    if torchvision is not None:
        img = torch.randn(2, 3, 112, 112)
        for name in ("resnet18", "mobilenet_v3_small", "squeezenet1_1", "convnext_tiny"):
            out.append((name, getattr(torchvision.models, name)().eval(), (img,)))
        cl = img.contiguous(memory_format=torch.channels_last)
        out.append(("resnet18 channels_last",
                    torchvision.models.resnet18().eval().to(memory_format=torch.channels_last),
                    (cl,)))
    return out


@pytest.mark.parametrize("name,model,inputs", _models(), ids=lambda v: v if isinstance(v, str) else "")
def test_models_record_the_exact_graph(name, model, inputs):
    same_graph(model, *inputs)


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
                a.T.contiguous().T @ b)  # a strided operand

    same_graph(f, a, b, a3, b3, w, bias, x1, w1, xt, wt)


def test_small_products_run_for_real():
    r = traced(lambda a, b: a @ b, torch.randn(8, 8), torch.randn(8, 8))
    assert r.approximated == 0


def test_switched_off(monkeypatch):
    monkeypatch.setenv("TGC_TRACE_APPROXIMATE", "0")
    a, b = torch.randn(256, 256), torch.randn(256, 256)

    def run(x, y):
        return x @ y
    assert trace(run, [a, b], [set(), set()]).approximated == 0


def test_a_python_read_computes_everything():
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


def test_a_graph_break_on_values_not_computed():
    torch.manual_seed(0)
    x, w = torch.randn(128, 256), torch.randn(256, 256)

    def f(x, w):
        y = x @ w
        return torch.nonzero(y > 0).float().sum(0) + y.sum()

    compiled = tgc.compile(f)
    assert_same(compiled(x, w), f(x, w))


def test_indices_from_a_product():
    torch.manual_seed(0)
    emb = nn.Embedding(256, 16)
    x, w = torch.randn(64, 256), torch.randn(256, 256)

    def f(x, w):
        return emb((x @ w).argmax(-1))

    same_graph(f, x, w)
    compiled = tgc.compile(f)
    assert_same(compiled(x, w), f(x, w))


def test_compiled_results_match_eager():
    torch.manual_seed(0)
    model = Encoder(vocab=500, d=256, layers=2).eval()
    ids = torch.randint(0, 500, (2, 64))
    with torch.no_grad():
        assert_same(tgc.compile(model)(ids), model(ids))


def test_flop_estimates():
    assert _approximate._flops("linear", (torch.empty(10, 20), torch.empty(30, 20))) == 2 * 200 * 30
    assert _approximate._flops("addmm", (torch.empty(30), torch.empty(10, 20),
                                         torch.empty(20, 30))) == 2 * 200 * 30
    assert _approximate._flops("conv2d", (torch.empty(1, 3, 8, 8), torch.empty(4, 3, 3, 3))) \
        == 2 * 64 * 108
    assert _approximate._flops("matmul", (torch.empty(5),)) == 0
