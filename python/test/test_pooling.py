"""max_pool2d with indices and its backward (python/tgc/_ops/pooling.py)
against eager PyTorch: indices equal exactly (ties keep the first element,
NaN is taken, windows past the input's edge), the backward's gradients
over kernel, stride, padding, dilation and ceil_mode, dynamic batch sizes,
and a CNN training step whose max pool no longer runs eagerly."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from conftest import assert_same, check, requires_cuda

GRID = [  # kernel, stride, padding, dilation, ceil_mode
    (3, 2, 1, 1, False),   # ResNet's stem
    (2, 2, 0, 1, False),   # non-overlapping
    (3, 1, 1, 1, False),   # stride 1: one phase
    (3, 2, 1, 2, False),   # dilation: every element in one phase
    (3, 2, 1, 1, True),    # ceil_mode: a last window past the input
    ((2, 3), (1, 2), (1, 0), (2, 1), True),
]


def _image(shape, seed=0):
    """ReLU output (ties at zero in most windows) with a NaN and a -inf."""
    g = torch.Generator().manual_seed(seed)
    x = torch.relu(torch.randn(*shape, generator=g))
    x.view(-1)[3] = float("nan")
    x.view(-1)[17] = float("-inf")
    return x


@pytest.mark.parametrize("k,s,p,d,ceil", GRID)
def test_max_pool2d_with_indices_forward(k, s, p, d, ceil):
    x = _image((2, 3, 11, 10))
    check(lambda x: F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True), x)
    check(lambda x: torch.ops.aten.max_pool2d_with_indices(x, k, s, p, d, ceil), x)


def test_max_pool2d_with_indices_all_negative_infinity_and_unbatched():
    # A window of -inf alone: its first element inside the input, as PyTorch.
    x = torch.full((1, 2, 5, 5), float("-inf"))
    check(lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), x)
    check(lambda x: F.max_pool2d_with_indices(x, 2), _image((3, 6, 7)))


def test_max_pool2d_with_indices_whole_input_window_compiles():
    # A 4x4 window over a 4x4 input (torch-mlir's FullSizeKernel test): the
    # window's walk is a chain whose values each feed the next step twice,
    # and the CPU's tile-and-fuse cloned its first ops once per path (2^16):
    # the compile never finished (tgc-form-kernels now bounds the clones).
    x = _image((2, 3, 4, 4))
    check(lambda x: torch.ops.aten.max_pool2d_with_indices(x, [4, 4], 1, 0, 1), x)


@pytest.mark.parametrize("k,s,p,d,ceil", GRID)
def test_max_pool2d_with_indices_backward(k, s, p, d, ceil):
    x = _image((2, 3, 11, 10))
    x.view(-1)[3] = 0.5  # finite: the gradient of a NaN input would be NaN anyway
    values, indices = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    grad = torch.randn(values.shape, generator=torch.Generator().manual_seed(1))
    check(lambda g, x, i: torch.ops.aten.max_pool2d_with_indices_backward(
        g, x, k, s, p, d, ceil, i), grad, x, indices)


def test_max_pool2d_with_indices_dynamic_batch():
    """A second batch size makes the batch dim symbolic (automatic dynamic):
    a third one needs no compile."""
    def f(x):
        v, i = F.max_pool2d(x, 3, 2, 1, return_indices=True)
        g = torch.ones_like(v)
        return v, i, torch.ops.aten.max_pool2d_with_indices_backward(
            g, x, [3, 3], [2, 2], [1, 1], [1, 1], False, i)

    compiled = check(f, _image((2, 4, 9, 9)))
    for n in (5, 7):
        x = _image((n, 4, 9, 9), seed=n)
        got, want = compiled(x), f(x)
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b, equal_nan=True)
    assert tgc.explain(compiled).compiles == 2


def test_max_pool2d_with_indices_dynamic_spatial_size_is_a_graph_break():
    f = tgc.compile(lambda x: F.max_pool2d(x, 2, return_indices=True), dynamic=True)
    x = _image((2, 3, 8, 8))
    got, want = f(x), F.max_pool2d(x, 2, return_indices=True)
    assert torch.equal(got[1], want[1])
    assert "dynamic spatial size" in str(tgc.explain(f))


class Stem(nn.Module):
    """ResNet's stem: convolution, batch norm, ReLU, 3x3 max pool stride 2."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 7, stride=2, padding=3, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 3, 2, 1)
        return self.fc(x.mean((2, 3)))


def test_training_step_compiles_the_max_pool():
    torch.manual_seed(0)
    ref = Stem()
    mine = Stem()
    mine.load_state_dict(ref.state_dict())
    compiled = tgc.compile(mine)
    x = torch.randn(4, 3, 32, 32)
    y = torch.randint(0, 4, (4,))
    F.cross_entropy(ref(x), y).backward()
    F.cross_entropy(compiled(x), y).backward()
    for (name, p), q in zip(ref.named_parameters(), mine.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-4, atol=1e-5, msg=name)
    lines = "\n".join(tgc.explain(compiled).training)
    assert "max_pool2d" not in lines, lines


def _outside_windows(device):
    # torch-mlir's e2e tests pass random indices: PyTorch's CPU kernel adds
    # each gradient at its index wherever it is (its CUDA kernel drops those
    # outside the window).
    torch.manual_seed(0)
    grad, x = torch.rand(2, 4, 7, 6), torch.rand(2, 4, 6, 5)
    indices = torch.randint(0, 16, (2, 4, 7, 6))

    def f(g, x, i):
        return torch.ops.aten.max_pool2d_with_indices_backward(
            g, x, [2, 2], [1, 1], [1, 1], [1, 1], False, i)

    args = [t.to(device) for t in (grad, x, indices)]
    c = tgc.compile(f)
    torch.testing.assert_close(c(*args), f(*args))
    return str(tgc.explain(c))


def test_backward_of_indices_outside_their_windows_compiles_on_the_cpu():
    # The CPU's backward is a scatter-add, as PyTorch's CPU kernel: any
    # index inside the input takes its gradient.
    text = _outside_windows("cpu")
    assert "0 graph break(s), 0 call(s) run eagerly" in text, text


@requires_cuda
def test_backward_of_indices_outside_their_windows_runs_eagerly_on_the_gpu():
    # CUDA's kernel drops them; the compiled scatter would add them where
    # they point: checked on the example, eager runs.
    assert "outside their windows" in _outside_windows("cuda")


def test_cpu_backward_is_a_scatter_add():
    """ResNet's stem pool at a small size: the backward is one
    tgc.scatter_add over the flattened spatial dims (an index out of the
    input is still an error, as in eager)."""
    x = _image((2, 3, 12, 12))
    x.view(-1)[3] = 0.5
    values, indices = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    grad = torch.randn(values.shape)

    def f(g, x, i):
        return torch.ops.aten.max_pool2d_with_indices_backward(
            g, x, [3, 3], [2, 2], [1, 1], [1, 1], False, i)

    c = check(f, grad, x, indices)
    assert "tgc.scatter_add" in tgc.explain(c).graphs[0]
    bad = indices.clone()
    bad.view(-1)[5] = 12 * 12
    with pytest.raises(RuntimeError, match="index out of range"):
        c(grad, x, bad)


@pytest.mark.parametrize("dynamic", [None, True])
def test_ceil_mode_windows_wider_than_the_input(dynamic):
    # A window that starts inside the input but is wider than it (padded):
    # PyTorch has one output there; the verifier rejected it ("window of
    # size 2 does not fit the padded input of size 1"), an internal error.
    cases = [
        (lambda x: F.max_pool1d(x, 2, 2, ceil_mode=True), (1, 2, 1)),
        (lambda x: F.avg_pool1d(x, 2, 2, ceil_mode=True), (1, 2, 1)),
        (lambda x: F.max_pool2d(x, 4, 4, ceil_mode=True), (1, 2, 3, 3)),
        (lambda x: F.avg_pool2d(x, 4, 4, ceil_mode=True), (1, 2, 3, 3)),
        (lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (1, 2, 1, 2)),
        (lambda x: F.max_pool2d(x, (3, 2), 3, ceil_mode=True), (2, 1, 2, 5)),
    ]
    for f, shape in cases:
        check(f, torch.randn(*shape), dynamic=dynamic)


def test_max_pool_without_a_window_runs_eagerly():
    # PyTorch 1.13's max_pool1d without grad returns an empty result where
    # no window fits (dilation 3, kernel 2, one element); TGC reported an
    # internal error. It is a graph break now: eager's answer (2.x raises).
    def f(x):
        return F.max_pool1d(x, 2, 3, 0, 3, ceil_mode=True) + 1

    x = torch.randn(1, 2, 1)
    try:
        want = f(x)
    except RuntimeError:
        pytest.skip("this PyTorch rejects the pool")
    c = tgc.compile(f)
    assert_same(c(x), want)
    assert [b.op for b in tgc.explain(c).graph_breaks] == ["max_pool1d"]
