"""Numerics of each supported operator against eager PyTorch (CPU)."""

import math

import pytest
import torch
import torch.nn.functional as F

import tgc
from conftest import assert_same, check

torch.manual_seed(0)
X = torch.randn(6, 10)
Y = torch.randn(10)
P = torch.rand(6, 10) + 0.1

UNARY = [
    torch.neg, torch.abs, torch.relu, torch.exp, torch.exp2, torch.expm1,
    torch.sin, torch.cos, torch.tanh, torch.sigmoid, torch.erf, torch.floor,
    torch.ceil, torch.round, F.silu, F.gelu, torch.reciprocal,
    lambda x: F.gelu(x, approximate="tanh"),
    lambda x: torch.clamp(x, -0.5, 0.5), lambda x: x.clamp(min=0.1),
    lambda x: F.relu6(x * 4), lambda x: F.leaky_relu(x, 0.2),
    lambda x: F.hardtanh(x), lambda x: x.square(),
    lambda x: F.hardswish(x * 4), lambda x: F.hardsigmoid(x * 4),
]


@pytest.mark.parametrize("fn", UNARY, ids=lambda f: getattr(f, "__name__", "lambda"))
def test_unary(fn):
    check(fn, X)


@pytest.mark.parametrize(
    "fn", [torch.log, torch.log2, torch.log1p, torch.sqrt, torch.rsqrt],
    ids=lambda f: f.__name__,
)
def test_unary_positive(fn):
    check(fn, P)


BINARY = [
    lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y,
    lambda x, y: x / (y.abs() + 1), lambda x, y: torch.maximum(x, y),
    lambda x, y: torch.minimum(x, y), lambda x, y: torch.atan2(x, y),
    lambda x, y: torch.add(x, y, alpha=2), lambda x, y: torch.sub(x, y, alpha=0.5),
    lambda x, y: x + 1, lambda x, y: 1 - x, lambda x, y: 2 * x, lambda x, y: x / 4,
    lambda x, y: 3 / (x.abs() + 1), lambda x, y: x ** 2, lambda x, y: (x.abs() + 1) ** 0.5,
    lambda x, y: (x.abs() + 1) ** y, lambda x, y: 2 ** x,
    lambda x, y: torch.where(x > y, x, y), lambda x, y: torch.where(x > 0, x, 0.0),
    lambda x, y: x.masked_fill(x < 0, -1.0), lambda x, y: x // 0.3,
    lambda x, y: torch.remainder(x, 0.7),
    lambda x, y: (x > y) & (x > 0), lambda x, y: (x > y) | (x > 0), lambda x, y: ~(x > y),
    lambda x, y: x == y, lambda x, y: x != 0, lambda x, y: x <= y, lambda x, y: x >= 0.5,
    lambda x, y: torch.logical_not(x > 0),
]


@pytest.mark.parametrize("fn", BINARY)
def test_binary(fn):
    check(fn, X, Y)


def test_type_promotion():
    i = torch.arange(10)
    check(lambda x, i: x * i, X, i)
    check(lambda i: i + 1, i)
    check(lambda i: i * 2.5, i)
    check(lambda i: i // 3, i)
    check(lambda i: i.float() / 3, i)
    check(lambda x: x.half().float(), X)
    check(lambda x: x.double() * 2, X)
    check(lambda x: (x > 0).long().sum(1), X)
    check(lambda x: x.to(torch.bfloat16), X)


REDUCTIONS = [
    lambda x: x.sum(), lambda x: x.sum(1), lambda x: x.sum(-1, keepdim=True),
    lambda x: x.mean(0), lambda x: torch.mean(x, dim=(0, 1)), lambda x: x.amax(1),
    lambda x: x.amin(0, keepdim=True), lambda x: x.max(), lambda x: x.min(),
    lambda x: x.max(1), lambda x: x.min(0, keepdim=True), lambda x: x.argmax(1),
    lambda x: x.argmin(0), lambda x: x.argmax(), lambda x: x.argmax(keepdim=True),
    lambda x: torch.argmin(x, keepdim=True), lambda x: x.var(1), lambda x: x.var(1, unbiased=False),
    lambda x: x.std(0), lambda x: x.norm(dim=1), lambda x: torch.linalg.norm(x, dim=1),
    lambda x: torch.softmax(x, 1), lambda x: F.log_softmax(x, dim=-1),
    lambda x: x.softmax(0), lambda x: torch.topk(x, 3), lambda x: torch.topk(x, 2, dim=0),
]


@pytest.mark.parametrize("fn", REDUCTIONS)
def test_reduction(fn):
    check(fn, X)


SHAPES = [
    lambda x: x.reshape(-1), lambda x: x.view(3, 20), lambda x: x.view(-1, 5),
    lambda x: x.flatten(), lambda x: x.t(), lambda x: x.T, lambda x: x.transpose(0, 1),
    lambda x: x.permute(1, 0), lambda x: x.unsqueeze(1), lambda x: x[None],
    lambda x: x.unsqueeze(0).squeeze(0), lambda x: x[:, 2:5], lambda x: x[1:4],
    lambda x: x[::2], lambda x: x[..., 3], lambda x: x[2], lambda x: x[-1],
    lambda x: x.select(1, 4), lambda x: x.narrow(1, 2, 3),
    lambda x: torch.cat([x, x * 2], 0), lambda x: torch.cat((x, x), dim=1),
    lambda x: torch.stack([x, x + 1], 0), lambda x: x[:1].expand(4, 10),
    lambda x: x.sum(0, keepdim=True).expand_as(x), lambda x: F.pad(x, (1, 2)),
    lambda x: F.pad(x, (0, 0, 2, 1), value=3.0), lambda x: x.contiguous().clone(),
    lambda x: x.flatten(0, 1).view(6, 10), lambda x: x.movedim(0, 1),
    lambda x: [t * 2 for t in x.split(3, dim=1)], lambda x: x.split([4, 6], 1)[1],
    lambda x: [t + 1 for t in x.chunk(4, 1)], lambda x: [t - 1 for t in x.unbind(0)],
    lambda x: sum(r for r in x),  # iterating a tensor unbinds dim 0
]


@pytest.mark.parametrize("fn", SHAPES)
def test_shape(fn):
    check(fn, X)


def test_indexing():
    idx = torch.tensor([0, 3, 5])
    check(lambda x, i: x.index_select(0, i), X, idx)
    check(lambda x, i: x[i], X, idx)
    g = torch.randint(0, 10, (6, 3))
    check(lambda x, i: torch.gather(x, 1, i), X, g)
    w = torch.randn(20, 4)
    ids = torch.randint(0, 20, (3, 5))
    check(lambda w, i: F.embedding(i, w), w, ids)
    # Expanded ids (BERT's token types over the batch): looked up once per
    # position, then expanded (tgc-sink-gathers); an id out of range in
    # them still fails the call, at the lookup.
    row = torch.randint(0, 20, (1, 5))
    words = torch.randn(3, 5, 4)
    expanded = lambda w, i, x: x + F.embedding(i.expand(3, -1), w)
    check(expanded, w, row, words)
    f = tgc.compile(expanded, fallback=False)
    assert torch.equal(f(w, row, words), expanded(w, row, words))
    with pytest.raises(tgc.TgcError, match="index out of range"):
        f(w, torch.tensor([[1, 2, 20, 3, 0]]), words)


def test_factories():
    check(lambda x: x + torch.ones(10), X)
    check(lambda x: x * torch.full((6, 10), 0.5), X)
    check(lambda x: x + torch.zeros_like(x), X, dynamic=True)
    check(lambda x: x + torch.arange(10), X)
    check(lambda x: x + torch.tensor([1.0, 2.0] * 5), X)


def test_linear_algebra():
    a, b = torch.randn(4, 6), torch.randn(6, 3)
    check(lambda a, b: a @ b, a, b, rtol=1e-4, atol=1e-4)
    check(torch.mm, a, b, rtol=1e-4, atol=1e-4)
    check(lambda a: a @ torch.ones(6), a, rtol=1e-4, atol=1e-4)
    ba, bb = torch.randn(3, 4, 6), torch.randn(3, 6, 5)
    check(torch.bmm, ba, bb, rtol=1e-4, atol=1e-4)
    check(torch.matmul, ba, torch.randn(6, 2), rtol=1e-4, atol=1e-4)
    w, bias = torch.randn(5, 6), torch.randn(5)
    check(F.linear, a, w, bias, rtol=1e-4, atol=1e-4)
    check(lambda b, a, w: torch.addmm(b, a, w), torch.randn(3), a, b, rtol=1e-4, atol=1e-4)
    m = torch.randn(3, 4, 4, dtype=torch.float64)
    spd = m @ m.transpose(1, 2) + 4 * torch.eye(4, dtype=torch.float64)
    check(torch.linalg.cholesky, spd, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("m, k, n", [
    (256, 768, 768),   # blocks of 64 x 256, k in blocks of 256: W packed transposed
    (128, 256, 512),   # k in one block (the whole of k)
    (200, 320, 512),   # a last block of 8 rows; k's last block not whole squares
    (256, 100, 512),   # k not whole squares of lanes
    (160, 300, 1000),  # a last block of 232 columns (not whole tiles): dot products
])
def test_large_linear_products(m, k, n):
    # Large products are cut into 2-D blocks (docs/cpu-pipeline.md, "Matrix
    # products"); x W^T's blocks pack W transposed where the sizes allow.
    x, w, b = torch.randn(m, k), torch.randn(n, k), torch.randn(n)
    check(F.linear, x, w, b, rtol=1e-4, atol=1e-3)
    check(lambda x, w: F.relu(x @ w.t()), x, w, rtol=1e-4, atol=1e-3)


def test_nn_ops():
    img = torch.randn(2, 3, 9, 9)
    w = torch.randn(4, 3, 3, 3)
    b = torch.randn(4)
    check(lambda x: F.conv2d(x, w, b, padding=1), img, rtol=1e-4, atol=1e-4)
    check(lambda x: F.conv2d(x, w, stride=2), img, rtol=1e-4, atol=1e-4)
    check(lambda x: F.max_pool2d(x, 2), img)
    check(lambda x: F.max_pool2d(x, 3, stride=2, padding=1), img)
    check(lambda x: F.avg_pool2d(x, 3, stride=3), img)
    check(lambda x: F.adaptive_avg_pool2d(x, 1), img)
    ln_w, ln_b = torch.randn(10), torch.randn(10)
    check(lambda x: F.layer_norm(x, (10,), ln_w, ln_b), X, rtol=1e-4, atol=1e-4)
    check(lambda x: F.layer_norm(x, (10,)), X, rtol=1e-4, atol=1e-4)
    check(lambda x: F.dropout(x, 0.5, training=False), X)
    # Batch norm with running statistics (inference), every spelling.
    c = 3
    mean, var = torch.randn(c), torch.rand(c) + 0.5
    bw, bb = torch.randn(c), torch.randn(c)
    check(lambda x: F.batch_norm(x, mean, var, bw, bb, False, 0.1, 1e-3), img,
          rtol=1e-5, atol=1e-5)
    check(lambda x: F.batch_norm(x, mean, var), img, rtol=1e-5, atol=1e-5)
    check(lambda x: torch.batch_norm(x, bw, bb, mean, var, False, 0.1, 1e-5, False), img,
          rtol=1e-5, atol=1e-5)
    bn = torch.nn.BatchNorm1d(10).eval()
    bn.running_mean.normal_()
    check(bn, X, rtol=1e-5, atol=1e-5)
    # The aten form returns the saved statistics too: empty without training
    # (they used to escape the tracer as an internal exception).
    rm, rv = torch.randn(c), torch.rand(c) + 0.5
    native = lambda x: torch.ops.aten.native_batch_norm(  # noqa: E731
        x, bw, bb, rm, rv, False, 0.1, 1e-5)
    got = tgc.compile(native, fullgraph=True)(img)
    for g, e in zip(got, native(img)):
        assert_same(g, e)
    with pytest.raises(tgc.Unsupported, match="batch_norm in training mode"):
        tgc.compile(lambda x: F.batch_norm(x, mean.clone(), var.clone(), training=True),
                    fullgraph=True)(img)


def test_inplace_and_out():
    def f(x, y):
        x.add_(y)
        x.mul_(2)
        return x

    x = torch.randn(6, 10)
    expected = f(x.clone(), Y)
    cf = __import__("tgc").compile(f)
    got = cf(x, Y)
    assert got is x
    assert_same(x, expected)

    def g(x, out):
        torch.exp(x, out=out)

    out = torch.empty(6, 10)
    __import__("tgc").compile(g)(X, out)
    assert_same(out, torch.exp(X))


def test_inputs_not_mutated():
    x = X.clone()
    check(lambda x: torch.relu(x) + 1, x)
    assert torch.equal(x, X)


# Operators written with other tgc ops (python/tgc/_ops/composite.py).
SQ = torch.randn(3, 6, 6)
IMG = torch.randn(2, 3, 5, 7)
COMPOSITE = [
    (torch.tril, (SQ,)), (lambda a: torch.triu(a, 1), (SQ,)),
    (lambda a: a.tril(-2), (torch.randint(0, 9, (4, 5)),)),
    (lambda a: a.clone().fill_(2.5), (IMG,)),
    (lambda a, v: a.clone().fill_(v), (IMG, torch.tensor(-0.5))),
    (lambda a, b: a.clone().copy_(b), (IMG, torch.randn(5, 7))),
    (lambda a, b: a.clone().copy_(b), (IMG, torch.randint(0, 5, (7,)))),
    (lambda a: torch.var_mean(a, 1), (IMG,)),
    (lambda a: torch.var_mean(a, (2, 3), keepdim=True, unbiased=False), (IMG,)),
    (lambda a: torch.std_mean(a, dim=-1), (IMG,)),
    # GEMMs: the accumulation order differs from PyTorch's (as in
    # test_linear_algebra).
    (lambda b, p, q: torch.baddbmm(b, p, q, beta=0.5, alpha=2),
     (torch.randn(3, 4, 5), torch.randn(3, 4, 6), torch.randn(3, 6, 5)), 1e-4),
    (lambda a: a + torch.eye(6), (SQ,)), (lambda a: a + torch.linspace(-1, 3, 6), (SQ,)),
    (lambda a: F.adaptive_avg_pool2d(a, 2), (torch.randn(2, 3, 6, 8),)),
    (lambda a: F.adaptive_avg_pool2d(a, (3, None)), (torch.randn(2, 3, 6, 8),)),
    (lambda a: F.interpolate(a, size=(10, 14)), (IMG,)),
    (lambda a: F.interpolate(a, size=(3, 4)), (IMG,)),
    (lambda a: F.interpolate(a, scale_factor=2.3), (IMG,)),
    (lambda a: F.interpolate(a, scale_factor=0.5), (IMG,)),
    (lambda a: F.interpolate(a, size=11), (torch.randn(2, 3, 7),)),
    (lambda a: F.pad(a, (2, 3, 1, 2), mode="reflect"), (IMG,)),
    (lambda a: F.pad(a, (2, 3, 1, 2), mode="replicate"), (IMG,)),
    (lambda a: F.pad(a, (2, 3, 1, 2), mode="circular"), (IMG,)),
    (lambda a: F.pad(a, (3, 1), mode="reflect"), (torch.randn(2, 3, 7),)),
    (lambda a: torch.diff(a), (IMG,)), (lambda a: torch.diff(a, n=2, dim=1), (IMG,)),
    (lambda a: torch.diff(a, prepend=a[..., :1] - 1, dim=-1), (IMG,)),
    (lambda a: torch.diff(a > 0, dim=2), (IMG,)),
]


@pytest.mark.parametrize("case", range(len(COMPOSITE)))
def test_composite(case):
    fn, args, *tol = COMPOSITE[case]
    tol = tol[0] if tol else 1e-5
    check(fn, *args, rtol=tol, atol=tol)


def test_baddbmm_beta_zero_ignores_the_input():
    # PyTorch documents that beta=0 ignores the input, NaN included. (Its
    # own CPU kernel on 1.13 sometimes returns NaN there, so the expected
    # value is the product, not eager baddbmm.)
    b = torch.full((3, 4, 5), float("nan"))
    p, q = torch.randn(3, 4, 6), torch.randn(3, 6, 5)
    got = tgc.compile(lambda b, p, q: torch.baddbmm(b, p, q, beta=0, alpha=2))(b, p, q)
    assert_same(got, 2 * torch.bmm(p, q), rtol=1e-4, atol=1e-4)


def test_diff_dynamic():
    # Hugging Face's packed-sequence check: diff with a prepended column.
    fn = lambda p: torch.diff(p, prepend=p[:, :1] - 1, dim=-1)  # noqa: E731
    f = check(fn, torch.arange(12).view(2, 6), dynamic=True)
    for s in ((3, 4), (2, 9)):
        x = torch.randint(0, 9, s)
        assert_same(f(x), fn(x))
    assert tgc.explain(f).compiles == 1


def test_composite_dynamic():
    # Masks from iotas over dynamic sizes: one compile for every size.
    f = check(lambda a: torch.tril(a, -1) + a.triu(2), torch.randn(2, 5, 7), dynamic=True)
    for s in ((3, 4, 4), (2, 9, 3)):
        x = torch.randn(*s)
        assert_same(f(x), torch.tril(x, -1) + x.triu(2))
    assert tgc.explain(f).compiles == 1


def _attention_reference(q, k, v, attn_mask=None, **kw):
    """PyTorch >= 2.5's attention with a mask: a query whose keys are all
    masked out gets 0 (aten._safe_softmax), not NaN."""
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    s = s.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool \
        else s + attn_mask
    return torch.nan_to_num(torch.softmax(s, -1), nan=0.0) @ v


_attention_reference.__name__ = "scaled_dot_product_attention"


@pytest.mark.parametrize("kind", ["bool", "additive"])
def test_attention_mask_fully_masked_rows(kind, monkeypatch):
    # e2e ScaledDotProductAttentionBoolMaskModule: rows with every key
    # masked were NaN (the plain softmax) where PyTorch 2.11 gives 0.
    from tgc._ops import nn as tnn

    monkeypatch.setattr(tnn, "_SAFE_SOFTMAX", True)
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 8, 16), torch.randn(2, 3, 12, 16), torch.randn(2, 3, 12, 20)
    m = torch.randn(2, 3, 8, 12) > 0.5 if kind == "bool" else \
        torch.where(torch.randn(2, 1, 8, 12) > 0.7, 0.0, float("-inf"))
    fn = getattr(F, "scaled_dot_product_attention", None)
    if fn is None:  # PyTorch 1.13: the reference, under the operator's name
        def fn(q, k, v, attn_mask=None):
            return torch.overrides.handle_torch_function(
                _attention_reference, (q,), q, k, v, attn_mask=attn_mask)
    want = _attention_reference(q, k, v, attn_mask=m)
    assert (want.abs().sum(-1) == 0).any()  # the inputs have fully masked rows
    got = tgc.compile(lambda q, k, v, m: fn(q, k, v, attn_mask=m))(q, k, v, m)
    assert_same(got, want, rtol=1e-4, atol=1e-5)


X3 = torch.randn(5, 6, 7)
MORE = [
    (lambda a: F.avg_pool1d(a, 3, 2, 1), (torch.randn(2, 3, 11),)),
    (lambda a: F.avg_pool1d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
     (torch.randn(2, 3, 11),)),
    (lambda a: F.max_pool1d(a, 3, 2, 1), (torch.randn(2, 3, 11),)),
    (lambda a: F.max_pool1d(a, 2, 1, 0, 2), (torch.randn(3, 11),)),
    (lambda a: F.adaptive_avg_pool1d(a, 4), (torch.randn(2, 3, 12),)),
    (lambda a: (a > 1).any(), (X,)), (lambda a: a.any(1), (X,)),
    (lambda a: torch.all(a > -1, 0, keepdim=True), (X,)),
    (lambda a: F.threshold(a, 0.1, -2.0), (X,)),
    (lambda a: torch.threshold(a, 2, 7), (torch.randint(0, 5, (4, 5)),)),
    # One integer index tensor among basic items; negative entries wrap.
    (lambda a, i: a[i], (X3, torch.tensor([0, 4, -1, 2]))),
    (lambda a, i: a[:, i], (X3, torch.tensor([0, 4, -1, 2]))),
    (lambda a, i: a[:, :, i], (X3, torch.tensor([[1, -2], [0, 5]]))),
    (lambda a, i: a[1:3, i], (X3, torch.tensor([[1, -2], [0, 5]]))),
    (lambda a, i: a[2, i, 1:], (X3, torch.tensor([0, 4, -1, 2]))),
]
# Losses over class indices: weights, ignore_index, every reduction, an
# unbatched and a K-dimensional input, and every target ignored (NaN).
_LP, _T = F.log_softmax(torch.randn(6, 5), 1), torch.tensor([0, 4, 2, -100, 1, 3])
_W = torch.rand(5) + 0.5
MORE += [
    (lambda a, b: F.nll_loss(a, b), (_LP, _T)),
    (lambda a, b, c: F.nll_loss(a, b, c, reduction="sum"), (_LP, _T, _W)),
    (lambda a, b, c: F.nll_loss(a, b, c, reduction="none"), (_LP, _T, _W)),
    (lambda a, b, c: F.nll_loss(a, b, c), (_LP, _T, _W)),
    (lambda a, b: F.nll_loss(a, b.clamp(min=0), ignore_index=2), (_LP, _T)),
    (lambda a, b: F.nll_loss(a, b * 0 - 100), (_LP, _T)),
    (lambda a, b: F.nll_loss(a, b), (_LP[0], torch.tensor(3))),
    (lambda a, b: F.nll_loss(a, b),
     (F.log_softmax(torch.randn(2, 5, 3, 4), 1), torch.randint(0, 5, (2, 3, 4)))),
    (lambda a, b: F.cross_entropy(a, b), (torch.randn(6, 5), _T)),
    (lambda a, b, c: F.cross_entropy(a, b, c, reduction="none"), (torch.randn(6, 5), _T, _W)),
]
# aten.nll_loss_forward returns the total weight too (0 for a batched
# input without reduction), every reduction, with and without weights.
MORE += [
    (lambda a, b, c, r=r: torch.ops.aten.nll_loss_forward(a, b, c, r, -100), args)
    for r in (0, 1, 2)
    for args in ((_LP, _T, _W), (_LP, _T, None), (_LP[0], torch.tensor(3), _W))
]


@pytest.mark.parametrize("case", range(len(MORE)))
def test_more_composite(case):
    fn, args = MORE[case]
    check(fn, *args)


def test_index_dynamic_negative():
    # A negative index of a dynamic dim wraps with the size at run time.
    f = check(lambda a, i: a[:, i], X3, torch.tensor([0, -1, 2]), dynamic=True)
    for s in ((3, 9, 2), (4, 4, 5)):
        x = torch.randn(*s)
        i = torch.tensor([1, -1, -s[1]])
        assert_same(f(x, i), x[:, i])
    assert tgc.explain(f).compiles == 1


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size, scale", [((7, 9), None), ((20, 33), None), ((3, 2), None),
                                         (None, 2.0), (None, 1.7)])
def test_interpolate_linear_and_cubic(mode, align_corners, size, scale):
    # Indices and weights as PyTorch's kernels compute them (borders
    # clamped, cubic A = -0.75), the last dim first.
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 6)
    check(lambda x: F.interpolate(x, size=size, scale_factor=scale, mode=mode,
                                  align_corners=align_corners), x, rtol=1e-5, atol=1e-5)


def test_interpolate_linear_trilinear_and_aten_forms():
    torch.manual_seed(0)
    check(lambda x: F.interpolate(x, size=17, mode="linear"), torch.randn(2, 3, 11))
    check(lambda x: F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=True),
          torch.randn(1, 2, 3, 4, 5))
    x = torch.randn(2, 3, 5, 6, dtype=torch.float64)
    check(lambda x: torch.ops.aten.upsample_bicubic2d(x, [9, 11], False), x)
    check(lambda x: torch.ops.aten.upsample_bilinear2d(x, [4, 13], True), x)
    with pytest.raises(tgc.Unsupported, match="antialias"):
        tgc.compile(lambda x: F.interpolate(x, size=(3, 3), mode="bilinear", antialias=True),
                    fullgraph=True)(torch.randn(1, 1, 8, 8))


def test_bool_fills_and_pads():
    # `tgc.full true : i1 : ...` does not parse (true carries its type): a
    # bool full or pad value used to fail verification (HF Mistral's mask).
    def f(x):
        m = torch.ones(x.shape[0], dtype=torch.bool)
        return torch.where(m, x, -x), torch.full((3,), True), F.pad(x > 0, (1, 2), value=True)

    for dynamic in (False, True):
        check(f, torch.randn(4), dynamic=dynamic)


def test_aten_constant_pad_nd_takes_its_value():
    # aten.constant_pad_nd(x, pad, value): the third argument is the value
    # (it reached F.pad's `mode` and was a graph break: GPT-2's training
    # graph pads its labels with -100).
    x = torch.arange(6).view(2, 3)
    check(lambda x: torch.ops.aten.constant_pad_nd(x, [0, 1], -100) * 2, x)
    check(lambda x: torch.ops.aten.constant_pad_nd(x, [1, 1, 0, 1]), torch.randn(2, 3))


def test_linear_one_dimensional_forms():
    # A vector input, a vector weight (a dot product), with and without a
    # bias (the e2e suite's AtenLinear1D: the traced graph did not verify).
    torch.manual_seed(0)
    x, w2, w1 = torch.randn(2, 5, 3), torch.randn(4, 3), torch.randn(3)
    b0, b4 = torch.tensor(0.5), torch.randn(4)
    cases = [(lambda a, b: torch.ops.aten.linear(a, b), torch.randn(3), w1),
             (lambda a, b: F.linear(a, b), x, w1),
             (lambda a, b: F.linear(a, b, b0), x, w1),
             (lambda a, b: F.linear(a, b, b4), torch.randn(3), w2)]
    checked = 0
    for fn, a, b in cases:
        try:
            fn(a, b)
        except RuntimeError:  # a vector weight needs PyTorch >= 2
            continue
        check(fn, a, b)
        checked += 1
    assert checked >= 1


# python/tgc/_ops/rearrange.py: diagonals, shuffles, counting, against eager.
_X3 = torch.randn(3, 4, 5)
REARRANGE = [
    (lambda a: torch.diagonal(a), (_X3,)),
    (lambda a: torch.diagonal(a, 1, 1, 2), (_X3,)),
    (lambda a: torch.diagonal(a, -2, 2, 0), (_X3,)),
    (lambda a: torch.diagonal(a, 9), (_X3,)),
    (lambda a: torch.trace(a), (torch.randn(4, 6),)),
    (lambda a: torch.trace(a), (torch.randint(-5, 5, (3, 3)),)),
    (lambda a: torch.channel_shuffle(a, 2), (torch.randn(2, 6, 3, 3),)),
    (lambda a: F.pixel_shuffle(a, 2), (torch.randn(2, 8, 3, 5),)),
    (lambda a: F.pixel_unshuffle(a, 2), (torch.randn(2, 3, 4, 6),)),
    (lambda a: torch.count_nonzero(a), (torch.randint(0, 3, (4, 5)),)),
    (lambda a: torch.count_nonzero(a, dim=1), (torch.randint(0, 3, (4, 5)).float(),)),
    (lambda a: torch.count_nonzero(a, dim=(0, 2)), (torch.randint(0, 2, (3, 4, 5)).bool(),)),
    (lambda a, b: torch.bucketize(a, b), (torch.randn(4, 5), torch.tensor([-1.0, 0.0, 0.5, 2.0]))),
    (lambda a, b: torch.bucketize(a, b, right=True, out_int32=True),
     (torch.tensor([[-1.0, 0.0, 0.7, 3.0]]), torch.tensor([-1.0, 0.0, 0.5, 2.0]))),
    (lambda g, a: torch.ops.aten.threshold_backward(g, a, 0.2),
     (torch.randn(3, 4), torch.randn(3, 4))),
    (lambda a: a.clone().zero_() + 1, (torch.randn(3, 2),)),
]


@pytest.mark.parametrize("case", range(len(REARRANGE)))
def test_rearrange_and_count(case):
    fn, args = REARRANGE[case]
    check(fn, *args)


@pytest.mark.parametrize("fn,arg", [
    (lambda x: F.adaptive_avg_pool2d(x, (7, 7)), torch.randn(2, 3, 10, 13)),
    (lambda x: F.adaptive_avg_pool2d(x, (3, 5)), torch.randn(2, 3, 10, 13)),
    (lambda x: F.adaptive_avg_pool2d(x, (None, 4)), torch.randn(2, 3, 10, 13)),
    (lambda x: F.adaptive_avg_pool2d(x, 6), torch.randn(3, 10, 13)),  # unbatched
    (lambda y: F.adaptive_avg_pool1d(y, 4), torch.randn(2, 3, 11)),
])
def test_adaptive_avg_pool_to_any_size(fn, arg):
    # PyTorch's windows [floor(i n / o), ceil((i + 1) n / o)), overlapping
    # where o does not divide n.
    check(fn, arg, rtol=1e-5, atol=1e-6)


def _special_rows(cols):
    x = torch.randn(7, cols) * 4
    x[1, 3] = float("nan")
    x[2, 0] = float("inf")
    x[3, :] = float("-inf")
    x[4, 5] = float("-inf")
    x[5, :] = 80.0  # exp would overflow without the max shift
    x[6, 2] = 1e30
    return x


@pytest.mark.parametrize("cols", [10, 1000, 8192])
def test_softmax_rows_with_special_values(cols):
    # The CPU computes exp(x - max) once per element into a row temporary
    # that the sum and the division read (softmax-exp-once); NaN, inf and
    # -inf rows behave as eager's.
    x = _special_rows(cols)
    check(lambda t: torch.softmax(t, -1), x)
    check(lambda t: torch.log_softmax(t, -1), x)
    # Softmax into a layer norm: one row kernel. (Without the 1e30 row,
    # whose variance overflows f32: eager and TGC then disagree on NaN
    # against 0, an overflow of the layer norm alone.)
    ln = torch.nn.LayerNorm(cols)
    check(lambda t: F.gelu(ln(torch.softmax(t, -1) * t), approximate="tanh"), x[:6],
          rtol=1e-4, atol=1e-5)


def test_results_of_successive_calls_are_separate_tensors():
    # CPU results are allocated by PyTorch during the call and written in
    # place: each call gets new memory, a later call never writes into an
    # earlier call's result.
    f = tgc.compile(lambda t: (t * 2, torch.softmax(t, -1)))
    x = torch.randn(64, 256)
    a, sa = f(x)
    a_copy, sa_copy = a.clone(), sa.clone()
    b, sb = f(x + 1)
    assert a.data_ptr() != b.data_ptr() and sa.data_ptr() != sb.data_ptr()
    assert_same(a, a_copy)
    assert_same(sa, sa_copy)
    assert_same(b, (x + 1) * 2)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs CUDA"))])
@pytest.mark.parametrize("e", [2.0, 3.0, -2.0, -1.0, 0.5, -0.5, 1.0, 0.0, 4.0, 1.5, 2, 3])
def test_pow_scalar_exponent_special_values(e, device):
    # A scalar exponent takes PyTorch's kernels (x*x, x*x*x, 1/(x*x), 1/x,
    # sqrt, rsqrt): the signed zeros, infinities and NaNs of eager's, also
    # in the reference interpreter; other exponents are pow's.
    x = torch.tensor([-0.0, 0.0, -1.5, 2.0, float("inf"), float("-inf"), float("nan"),
                      1e-30, -3.0, 7.25, 1e20, -1e-20], device=device)
    want = torch.pow(x, e)
    for mode in ("", "reference"):
        tgc.set_check(mode)
        try:
            got = check(lambda t: torch.pow(t, e), x, rtol=1e-6, atol=0)(x)
        finally:
            tgc.set_check("")
        signs = ~torch.isnan(want)
        assert torch.equal(torch.signbit(got[signs]), torch.signbit(want[signs])), (mode, got, want)
        assert torch.equal(torch.isnan(got), torch.isnan(want)), (mode, got, want)


KEYWORD_CALLS = [
    lambda a, b, c: c.baddbmm(batch1=a, batch2=b, beta=1.0, alpha=0.5),  # HF BLOOM
    lambda a, b, c: torch.baddbmm(c, batch1=a, batch2=b),
    lambda a, b, c: torch.addmm(c[0, 0, :4], mat1=a[0].t(), mat2=a[1]),
    lambda a, b, c: a.transpose(dim0=1, dim1=2),
    lambda a, b, c: torch.transpose(a, dim0=0, dim1=2),
    lambda a, b, c: a.swapaxes(axis0=0, axis1=1),
    lambda a, b, c: torch.movedim(a, source=0, destination=2),
    lambda a, b, c: a.moveaxis(source=(0, 1), destination=(1, 2)),
    lambda a, b, c: torch.pow(a, exponent=2),
    lambda a, b, c: a.pow(exponent=3.0),
    lambda a, b, c: torch.matmul(a, other=b),
    lambda a, b, c: a[0].mm(mat2=b[0]),
    lambda a, b, c: torch.bmm(a, mat2=b),
]


@pytest.mark.parametrize("case", range(len(KEYWORD_CALLS)))
def test_keyword_arguments_by_pytorchs_names(case):
    """Operators called with PyTorch's keyword names compile (a handler
    with other parameter names raised TypeError: a graph break per call)."""
    fn = KEYWORD_CALLS[case]
    a, b, c = torch.randn(2, 3, 4), torch.randn(2, 4, 5), torch.randn(2, 3, 5)
    torch.testing.assert_close(tgc.compile(fn, fullgraph=True)(a, b, c), fn(a, b, c))


REPEATS = [
    lambda x: x.repeat(2, 3),
    lambda x: x.repeat(2, 1, 3),  # a new leading dim
    lambda x: x.repeat((1, 1)),
    lambda x: x.repeat(0, 2),  # empty
    lambda x: torch.tile(x, (2,)),  # fewer repetitions than dims: ones in front
    lambda x: x.tile(2, 1, 2),
    lambda x: x.repeat_interleave(2, dim=1),  # HF GPT-J's rotary embedding
    lambda x: torch.repeat_interleave(x, 3, dim=0),
    lambda x: x.repeat_interleave(2),  # flattened
    lambda x: torch.repeat_interleave(x, repeats=2, dim=-1),
    lambda x: x.repeat_interleave(0, dim=1),
    lambda x: (x * 2).repeat(2, 1)[1:] + 1,
]


@pytest.mark.parametrize("dynamic", [None, True])
@pytest.mark.parametrize("case", range(len(REPEATS)))
def test_repeat_tile_repeat_interleave(case, dynamic):
    """repeat, tile and repeat_interleave with a number of repetitions
    (they were graph breaks): one compile for every size with dynamic=True."""
    fn = REPEATS[case]
    f = tgc.compile(fn, fullgraph=True, dynamic=dynamic)
    for shape in ((3, 4), (5, 4), (5, 7)):
        x = torch.randn(*shape)
        assert_same(f(x), fn(x))
    # (dynamic=None: static, then dynamic in each dim as it changes)
    assert tgc.explain(f).compiles == (1 if dynamic else 3)


def test_repeat_interleave_of_counts_is_a_graph_break():
    def fn(x, counts):
        return x.repeat_interleave(counts, dim=0) * 2

    f = tgc.compile(fn)
    x, counts = torch.randn(3, 2), torch.tensor([1, 0, 2])
    assert_same(f(x, counts), fn(x, counts))
    assert [b.op for b in tgc.explain(f).graph_breaks] == ["repeat_interleave"]


def test_trace_runs_attention_without_a_mask_that_passes_everything():
    """The trace's eager attention on CUDA runs without a mask that lets
    every score through (tgc._ops.core._eager_call): Hugging Face keeps
    such a padding mask while torch.compiler.is_compiling() is True, and
    the masked kernel, which eager never ran, was loaded in every new
    process. Only masks that cannot change the result (or its shape) are
    dropped."""
    from tgc._ops.core import plain_attention

    q, k, v = torch.randn(2, 4, 3, 8), torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8)
    keep = torch.ones(2, 1, 1, 5, dtype=torch.bool)
    zero = torch.zeros(5)
    args, kwargs = plain_attention((q, k, v, keep, 0.0), {})
    assert args[3] is None and args[4] == 0.0 and args[0] is q and kwargs == {}
    args, kwargs = plain_attention((q, k, v), {"attn_mask": zero, "scale": 0.5})
    assert kwargs == {"attn_mask": None, "scale": 0.5}
    assert plain_attention((), {"query": q, "key": k, "value": v, "attn_mask": zero})
    some = keep.clone()
    some[1, 0, 0, 2] = False
    minus_inf = zero.clone()
    minus_inf[3] = float("-inf")
    nan = zero.clone()
    nan[0] = float("nan")
    tiny = zero.clone()
    tiny[1] = 1e-30
    wider = torch.zeros(3, 2, 4, 3, 5)  # broadcasts the scores to 5 dims
    tri = torch.ones(3, 5, dtype=torch.bool).tril()
    for mask in (some, minus_inf, nan, tiny, wider, tri):
        assert plain_attention((q, k, v, mask), {}) is None
        assert plain_attention((q, k, v), {"attn_mask": mask}) is None
    assert plain_attention((q, k, v), {}) is None
    assert plain_attention((q, k, v, torch.zeros(7)), {}) is None  # does not broadcast
    # What PyTorch rejects keeps its mask (and its error): another float
    # dtype, an integer mask, is_causal with a mask, another device.
    for mask in (torch.zeros(5, dtype=torch.float64), torch.zeros(5, dtype=torch.long)):
        assert plain_attention((q, k, v, mask), {}) is None
    assert plain_attention((q, k, v, zero, 0.0, True), {}) is None
    assert plain_attention((q, k, v), {"attn_mask": keep, "is_causal": True}) is None
    assert plain_attention((q, k, v), {"attn_mask": zero, "is_causal": False})
    assert plain_attention((q, k, v), {"attn_mask": torch.zeros(5, device="meta")}) is None
