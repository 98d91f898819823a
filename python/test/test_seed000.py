"""Seed 000: out-variant ops over varying sizes compile once.

Under dynamic=None (PyTorch's automatic mode) the first call compiles a
static specialization and the first size change at most one dynamic one;
under dynamic=True there is exactly one compile. Results equal eager."""

import pytest
import torch

import tgc
from conftest import assert_same


def topk_out(x, k, out):
    torch.topk(x, k, out=out)


def bmm_out(a, b, c):
    torch.bmm(a, b, out=c)


def norm_out(x, o):
    torch.linalg.norm(x, dim=1, out=o)


def max_out(x, v, i):
    torch.max(x, dim=1, out=(v, i))


def cholesky(a):
    return torch.linalg.cholesky(a)


@pytest.mark.parametrize("dynamic,limit", [(None, 2), (True, 1)])
def test_topk_out(dynamic, limit):
    f = tgc.compile(topk_out, dynamic=dynamic)
    v, i = torch.empty(10), torch.empty(10, dtype=torch.long)
    for n in range(100, 200, 7):
        x = torch.randn(n)
        f(x, 10, out=(v, i))
        ev, ei = torch.topk(x, 10)
        assert torch.equal(v, ev) and torch.equal(i, ei)
    assert tgc.explain(f).compiles == limit


@pytest.mark.parametrize("dynamic,limit", [(None, 2), (True, 1)])
def test_bmm_out(dynamic, limit):
    f = tgc.compile(bmm_out, dynamic=dynamic)
    for batch in (2, 3, 5, 8):
        a, b = torch.randn(batch, 4, 6), torch.randn(batch, 6, 5)
        c = torch.empty(batch, 4, 5)
        f(a, b, c)
        assert_same(c, torch.bmm(a, b), rtol=1e-4, atol=1e-4)
    assert tgc.explain(f).compiles == limit


@pytest.mark.parametrize("dynamic,limit", [(None, 2), (True, 1)])
def test_norm_out(dynamic, limit):
    f = tgc.compile(norm_out, dynamic=dynamic)
    o = torch.empty(6)
    for n in (5, 9, 17, 33):
        x = torch.randn(6, n)
        f(x, o)
        assert_same(o, torch.linalg.norm(x, dim=1), rtol=1e-4, atol=1e-5)
    assert tgc.explain(f).compiles == limit


@pytest.mark.parametrize("dynamic,limit", [(None, 2), (True, 1)])
def test_max_out(dynamic, limit):
    f = tgc.compile(max_out, dynamic=dynamic)
    v, i = torch.empty(4), torch.empty(4, dtype=torch.long)
    for n in (3, 8, 13, 21):
        x = torch.randn(4, n)
        f(x, v, i)
        ev, ei = torch.max(x, dim=1)
        assert torch.equal(v, ev) and torch.equal(i, ei)
    assert tgc.explain(f).compiles == limit


@pytest.mark.parametrize("dynamic,limit", [(None, 2), (True, 1)])
def test_cholesky(dynamic, limit):
    f = tgc.compile(cholesky, dynamic=dynamic)
    for batch in (1 + 1, 3, 6):
        m = torch.randn(batch, 5, 5, dtype=torch.float64)
        a = m @ m.transpose(1, 2) + 5 * torch.eye(5, dtype=torch.float64)
        assert_same(f(a), torch.linalg.cholesky(a), rtol=1e-9, atol=1e-9)
    assert tgc.explain(f).compiles == limit


def test_topk_k_larger_than_size_is_an_error_not_a_wrong_answer():
    f = tgc.compile(topk_out, dynamic=True)
    v, i = torch.empty(10), torch.empty(10, dtype=torch.long)
    f(torch.randn(50), 10, out=(v, i))
    with pytest.raises(RuntimeError):
        f(torch.randn(5), 10, out=(v, i))  # eager raises too: k > size


def test_out_buffer_overlapping_the_input_is_an_error():
    f = tgc.compile(topk_out, dynamic=True, fallback=False)
    v, i = torch.empty(10), torch.empty(10, dtype=torch.long)
    f(torch.randn(50), 10, out=(v, i))
    x = torch.randn(50)
    with pytest.raises(tgc.TgcError, match="invalid arguments: .*arg1 does not alias arg0"):
        f(x, 10, out=(x[:10], i))
    assert tgc.explain(f).compiles == 1
