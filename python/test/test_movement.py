"""flip, rot90, roll, slice_scatter, select_scatter, diag_embed
(python/tgc/_ops/movement.py) against eager PyTorch."""

import pytest
import torch

import tgc
from conftest import check

torch.manual_seed(0)
X = torch.randn(3, 4, 5)


@pytest.mark.parametrize("fn", [
    lambda x: torch.flip(x, [0, 2]), lambda x: x.flip(-1), torch.fliplr, torch.flipud,
    lambda x: torch.rot90(x, 1, [0, 2]), lambda x: torch.rot90(x, 2),
    lambda x: torch.rot90(x, 3, [1, 2]), lambda x: torch.rot90(x, -1),
    lambda x: torch.roll(x, 2, 1), lambda x: torch.roll(x, (-1, 7), (0, 2)),
    lambda x: torch.roll(x, 5), lambda x: torch.roll(x, -13),
    # (PyTorch 1.13's slice_scatter needs the step spelled out)
    lambda x: torch.slice_scatter(x, x[:, :2] * 2, dim=1, start=2, end=4, step=1),
    lambda x: torch.slice_scatter(x, x[:, :1] + 1, dim=1, start=-1, end=None, step=1),
    lambda x: torch.select_scatter(x, x[:, 0] * 3, 1, -2),
    lambda x: torch.diag_embed(x), lambda x: torch.diag_embed(x, 1),
    lambda x: torch.diag_embed(x, -2, 0, 2),
    lambda x: torch.diag_embed(x * float("nan")),  # zeros off the diagonal, not NaN
])
def test_movement_matches_eager(fn):
    check(fn, X)


def test_roll_of_a_dynamic_size_is_a_graph_break():
    f = lambda x: torch.roll(x, 1, 0) * 2  # noqa: E731
    c = tgc.compile(f, dynamic=True)
    for n in (3, 5):
        x = torch.randn(n, 4)
        torch.testing.assert_close(c(x), f(x))
    assert [b.op for b in tgc.explain(c).graph_breaks] == ["roll"]


I, J, K = torch.tensor([0, 3, -1]), torch.tensor([[1], [-2]]), torch.tensor([2, 4, 0])
X4 = torch.randn(4, 5, 6, 7)


@pytest.mark.parametrize("fn", [
    lambda x: x[I, K], lambda x: x[:, I, K], lambda x: x[:, :, I, K],
    lambda x: x[:, J, I],                  # index shapes broadcast
    lambda x: x[1, I, K], lambda x: x[I, K, 2],
    lambda x: x[I, :, K], lambda x: x[I, K, :, I],  # separated: index dims first
    lambda x: torch.ops.aten.index(x, [None, I, K]),
])
def test_several_index_tensors(fn):
    check(fn, X4)


@pytest.mark.parametrize("fn", [
    lambda x: x.unfold(1, 3, 2), lambda x: x.unfold(-1, 2, 1), lambda x: x.unfold(0, 3, 3),
    lambda x: x[0, 0].unfold(0, 4, 3),
    lambda x: torch.nn.functional.rrelu(x), lambda x: torch.rrelu(x, 0.2, 0.4, False),
])
def test_unfold_and_rrelu_eval(fn):
    check(fn, torch.randn(3, 10, 4))


def _devices():
    from conftest import cuda_ready
    return ["cpu"] + (["cuda"] if cuda_ready() else [])


@pytest.mark.parametrize("device", _devices())
def test_concat_inputs_written_in_place(device):
    """A concat's producers write their slices of the result directly (its
    insert_slice chain, empty-tensor elimination; tgc-decompose moves merge
    reshapes after the concat): GPT-2's q, k, v gradients, transposed and
    merged; a producer that is also returned; an input used twice; an
    argument; a row kernel reading the concat."""
    q = torch.randn(2, 3, 5, 4, device=device)
    k = torch.randn(2, 3, 4, 5, device=device)
    v = torch.randn(2, 3, 5, 4, device=device)

    def qkv(q, k, v):
        parts = [t.permute(0, 2, 1, 3).reshape(2, 5, 12)
                 for t in (q, k.transpose(-1, -2), v)]
        return torch.cat(parts, dim=2)

    check(qkv, q, k, v)

    def shared(q, v):
        p = (q * 2).permute(0, 2, 1, 3)
        c = torch.cat([p, v.permute(0, 2, 1, 3), p], dim=1)
        return c, p + 1, torch.layer_norm(c, (4,))

    check(shared, q, v)

    def with_argument(x, y):
        return torch.cat([x.exp(), y, x], dim=0) * 3

    check(with_argument, torch.randn(3, 4, device=device), torch.randn(2, 4, device=device))


def test_slice_scatter_over_all_of_a_dynamic_size_is_its_source():
    """slice_backward of x[:, :] (a training backward) over a dynamic batch
    size: the source is the result, no graph break."""
    def f(x, y):
        return torch.slice_scatter(x, y * 2, dim=0, start=0, end=None, step=1) + 1

    c = tgc.compile(f, dynamic=True)
    for n in (3, 5):
        x, y = torch.randn(n, 4), torch.randn(n, 4)
        torch.testing.assert_close(c(x, y), f(x, y))
    e = tgc.explain(c)
    assert e.compiles == 1 and not e.graph_breaks, str(e)
