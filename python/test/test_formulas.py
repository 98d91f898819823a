"""lerp, cross, kl_div, addcmul, addcdiv (python/tgc/_ops/formulas.py) and einsum
(python/tgc/_ops/einsum.py) against eager PyTorch."""

import pytest
import torch
import torch.nn.functional as F

import tgc
from conftest import assert_same, check

torch.manual_seed(0)
A, B = torch.randn(4, 3), torch.randn(4, 3)
W = torch.rand(4, 3) * 2 - 0.5
LP = torch.log_softmax(torch.randn(4, 5), -1)
TG = torch.softmax(torch.randn(4, 5), -1)
TG[0, 0] = 0  # xlogy: 0 * log 0 is 0


@pytest.mark.parametrize("fn,args", [
    (lambda a, b: torch.lerp(a, b, 0.3), (A, B)),
    (lambda a, b: torch.lerp(a, b, 0.7), (A, B)),
    (torch.lerp, (A, B, W)),
    (torch.linalg.cross, (A, B)),
    (lambda a, b: torch.cross(a, b[:1]), (A, B)),  # broadcast, the first dim of size 3
    (lambda a, b: torch.linalg.cross(a.t(), b.t(), dim=0), (A, B)),
    (lambda x, t: F.kl_div(x, t, reduction="batchmean"), (LP, TG)),
    (lambda x, t: F.kl_div(x, t, reduction="sum"), (LP, TG)),
    (lambda x, t: F.kl_div(x, t, reduction="none"), (LP, TG)),
    (lambda x, t: F.kl_div(x, t.clamp_min(1e-3).log(), reduction="batchmean",
                           log_target=True), (LP, TG)),
])
def test_formulas_match_eager(fn, args):
    check(fn, *args, rtol=1e-6, atol=1e-6)


D = torch.rand(4, 3) + 0.5


@pytest.mark.parametrize("fn,args", [
    (torch.addcmul, (A, B, W)),
    (lambda a, b, w: torch.addcmul(a, b, w, value=-0.25), (A, B, W)),
    (lambda a, b, w: torch.addcmul(a, b[:1], w[:, :1], value=3), (A, B, W)),  # broadcast
    (lambda a, b, d: torch.addcdiv(a, b, d, value=0.001), (A, B, D)),
    (lambda a, b, d: torch.addcdiv(a[0], b, d), (A, B, D)),
    (lambda a, b, w: torch.addcmul(a.bfloat16(), b.bfloat16(), w.bfloat16(), value=0.1),
     (A, B, W)),
    (lambda a, b, w: torch.addcmul(a.long(), (b * 4).long(), (w * 4).long(), value=2),
     (A, B, W)),
])
def test_addcmul_addcdiv_match_eager(fn, args):
    # ATen contracts the multiply-add of addcmul into one rounding (fma);
    # TGC rounds the product first: the last bit may differ.
    check(fn, *args, rtol=2e-6, atol=1e-6)


def test_addcmul_addcdiv_in_place_write_back():
    def f(v, g, m, d):
        v.mul_(0.999).addcmul_(g, g, value=0.001)
        m.addcdiv_(g, d, value=-0.5)
        return v + m

    args = [A.clone(), B, W.clone(), D]
    expected_args = [a.clone() for a in args]
    expected = f(*expected_args)
    got = tgc.compile(f, fullgraph=True)(*args)
    assert_same(got, expected, 2e-6, 1e-6)
    for a, e in zip(args, expected_args):
        assert_same(a, e, 2e-6, 1e-6)


def test_foreach_ops_compile_per_element():
    """torch._foreach_<op>[_] (optimizers' multi-tensor calls): the op per
    element of the lists, lists of numbers per element, in place written
    back; no graph break."""
    def f(a, b, c):
        torch._foreach_mul_([a, b], 0.5)
        r = torch._foreach_add([a, b], [c, c], alpha=2)
        torch._foreach_addcmul_([a, b], [c, c], [c, c], value=0.1)
        torch._foreach_add_([a, b], [1.0, -2.0])
        return r[0] + r[1] + torch._foreach_sqrt([a.abs(), b.abs()])[1]

    args = [A[0].clone(), A[1].clone(), B[0].clone()]
    expected_args = [t.clone() for t in args]
    expected = f(*expected_args)
    compiled = tgc.compile(f)
    assert_same(compiled(*args), expected, 2e-6, 1e-6)
    for a, e in zip(args, expected_args):
        assert_same(a, e, 2e-6, 1e-6)
    assert not tgc.explain(compiled).graph_breaks


X3, Y3, C2 = torch.randn(2, 3, 4), torch.randn(2, 4, 5), torch.randn(5, 6)
V = torch.randn(4)
Q, K = torch.randn(2, 7, 3, 8), torch.randn(2, 9, 3, 8)


@pytest.mark.parametrize("eq,ops", [
    ("bij,bjk->bik", (X3, Y3)), ("ij,jk", (X3[0], Y3[0])), ("ij->ji", (X3[0],)),
    ("ij->", (X3[0],)), ("i,i->", (V, V)), ("i,j->ij", (V, V)),
    ("bij,bjk,kl->bil", (X3, Y3, C2)), ("...ij,...jk->...ik", (X3, Y3)),
    ("bqhd,bkhd->bhqk", (Q, K)), ("bhqk,bkhd->bqhd", (torch.randn(2, 3, 7, 9), K)),
    ("ijk", (X3,)), ("bij,j->bi", (X3, V)), ("ijk,ijk->k", (X3, X3)),
    ("b i j, b j k -> b k i", (X3, Y3)), ("i...->...", (X3,)),
])
def test_einsum_matches_eager(eq, ops):
    check(lambda *o: torch.einsum(eq, *o), *ops, rtol=1e-5, atol=1e-5)


def test_einsum_attention_with_dynamic_sizes_compiles_once():
    f = lambda q, k: torch.einsum("bqhd,bkhd->bhqk", q, k).softmax(-1)  # noqa: E731
    c = tgc.compile(f, dynamic=True, fullgraph=True)
    for s in (5, 9, 12):
        q, k = torch.randn(2, s, 3, 8), torch.randn(2, s + 1, 3, 8)
        assert_same(c(q, k), f(q, k))
    assert tgc.explain(c).compiles == 1


def test_einsum_diagonal_is_reported():
    with pytest.raises(tgc.Unsupported, match="repeated in one operand"):
        tgc.compile(lambda x: torch.einsum("ii->i", x), fullgraph=True)(torch.randn(3, 3))


MASK = torch.randint(0, 2, (2, 9), dtype=torch.int32)


@pytest.mark.parametrize("fn,arg", [
    (lambda x: torch.cumsum(x, 1), torch.randn(3, 37)),
    (lambda x: x.cumsum(0), torch.randn(5, 4)),
    (lambda m: m.cumsum(-1) - 1, MASK),  # HF's position ids from a mask: int64
    (lambda m: torch.cumsum(m, 1, dtype=torch.float32), MASK),
    (lambda x: torch.cumsum(x[0, 0], 0), torch.randn(2, 3)),  # 0-d
])
def test_cumsum_matches_eager(fn, arg):
    check(fn, arg, rtol=1e-5, atol=1e-5)


def test_cumsum_along_a_dynamic_size():
    """HF RoBERTa's position ids (a cumsum of the padding mask along the
    sequence) with a sequence length that changes: no graph break, one
    compile for lengths up to 1024, another past them, exact integers."""
    def position_ids(ids):
        mask = ids.ne(1).int()
        return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + 1

    f = tgc.compile(position_ids, fullgraph=True, dynamic=True)
    for length in (7, 12, 33, 1024):
        ids = torch.randint(0, 4, (2, length))
        assert torch.equal(f(ids), position_ids(ids))
    assert tgc.explain(f).compiles == 1
    for length in (1500, 2048, 900):  # past 1024: compiled again, for up to 4096
        ids = torch.randint(0, 4, (3, length))
        assert torch.equal(f(ids), position_ids(ids))
    assert tgc.explain(f).compiles == 2
    assert not tgc.explain(f).graph_breaks
    g = tgc.compile(lambda x: x.cumsum(0) * 2, fullgraph=True, dynamic=True)
    for rows in (3, 9, 40):
        x = torch.randn(rows, 5)
        torch.testing.assert_close(g(x), x.cumsum(0) * 2, rtol=1e-5, atol=1e-5)


P = torch.rand(3, 7) + 0.5
IP = torch.randint(-3, 4, (4, 5), dtype=torch.int32)


@pytest.mark.parametrize("fn,arg", [
    (torch.prod, P), (lambda x: x.prod(1), P), (lambda x: x.prod(0, keepdim=True), P),
    (lambda i: i.prod(1), IP), (torch.prod, IP),  # int32 -> int64, exact
    (lambda x: torch.prod(x, 1, dtype=torch.float64), P),
    (lambda x: torch.prod(x[0, 0]), P),
])
def test_prod_matches_eager(fn, arg):
    check(fn, arg, rtol=1e-5, atol=1e-6)


def test_bilinear_matches_eager():
    torch.manual_seed(0)
    m = torch.nn.Bilinear(4, 5, 3).eval()
    a, b = torch.randn(2, 7, 4), torch.randn(2, 7, 5)
    with torch.no_grad():
        check(m, a, b, rtol=1e-5, atol=1e-5)
        check(lambda a, b: F.bilinear(a, b, m.weight), a, b, rtol=1e-5, atol=1e-5)
        check(lambda a, b: m(a[0, 0], b[0, 0]), a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("expand1,expand2,expand3,sumdim", [
    ([], [], [], [0, 1]), ([], [], [], [1]), ([], [], [], []), ([], [], [], [0]),
])
def test_trilinear_matches_eager(expand1, expand2, expand3, sumdim):
    x, y, z = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)
    check(lambda x, y, z: torch._trilinear(x, y, z, expand1, expand2, expand3, sumdim),
          x, y, z, rtol=1e-5, atol=1e-5)


def test_trilinear_as_bilinear_uses_it():
    a, w, b = torch.randn(6, 4), torch.randn(3, 4, 5), torch.randn(6, 5)
    check(lambda a, w, b: torch._trilinear(a, w, b, [1, 3], [0], [1, 2], [2, 3]), a, w, b,
          rtol=1e-5, atol=1e-5)


def test_leaky_and_rrelu_backward_match_eager():
    aten = torch.ops.aten
    g, x = torch.randn(3, 4), torch.randn(3, 4)
    check(lambda g, x: aten.leaky_relu_backward(g, x, 0.2, False), g, x)
    check(lambda g, x: aten.rrelu_with_noise_backward(g, x, torch.zeros(3, 4), 0.1, 0.3,
                                                      False, False), g, x)
