"""In-place updates of tensors from outside the compiled function
(parameters, buffers, globals): the trace never writes them (a compile that
fails, then runs the function eagerly, would apply the update twice), and a
graph whose attributes are updated in place (Dynamo's graph of an
optimizer step) gets them as inputs, updated by the compiled code."""

import copy
import warnings

import pytest
import torch
import torch.fx
import torch.nn.functional as F

import tgc
from conftest import assert_same
from tgc.backend import _inference_backend


class ForeachState(torch.nn.Module):
    """An optimizer-like update of its own parameters and buffers."""

    def __init__(self):
        super().__init__()
        self.p0 = torch.nn.Parameter(torch.randn(3, 2))
        self.p1 = torch.nn.Parameter(torch.randn(3))
        self.register_buffer("m0", torch.zeros(3, 2))
        self.register_buffer("m1", torch.zeros(3))
        self.register_buffer("steps", torch.zeros(2))

    def forward(self, g0, g1):
        self.steps.add_(1)
        torch._foreach_mul_([self.p0, self.p1], 0.9)
        d = torch._foreach_sub([g0, g1], [self.m0, self.m1])
        d = torch._foreach_mul([d[0], d[1]], 0.1)
        torch._foreach_add_([self.m0, self.m1], [d[0], d[1]])
        torch._foreach_add_([self.p0, self.p1], [self.m0, self.m1], alpha=-0.5)
        return ()


class PlainState(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = torch.nn.Parameter(torch.randn(3, 2))
        self.register_buffer("m", torch.zeros(3, 2))

    def forward(self, g):
        self.p.mul_(0.9)
        self.m.add_(g * 0.1)
        return self.p + self.m


def _grads():
    torch.manual_seed(1)
    return [torch.randn(3, 2), torch.randn(3)]


def _state(m):
    return {k: v.detach().clone() for k, v in list(m.named_parameters()) + list(m.named_buffers())}


def _same_state(a, b):
    sa, sb = _state(a), _state(b)
    assert sa.keys() == sb.keys()
    for k in sa:
        assert_same(sa[k], sb[k], 1e-6, 1e-6)


@pytest.mark.parametrize("cls,nargs", [(ForeachState, 2), (PlainState, 1)])
def test_outside_update_falls_back_once(cls, nargs):
    """fallback=True: the function runs eagerly, its module updated once per
    call, as eager's."""
    torch.manual_seed(0)
    m = cls().requires_grad_(False)
    ref = copy.deepcopy(m)
    args = _grads()[:nargs]
    f = tgc.compile(m, fallback=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(3):
            f(*args)
            ref(*args)
            _same_state(m, ref)
    assert "from outside the function" in str(tgc.explain(f))


def test_outside_update_is_an_error_that_writes_nothing():
    torch.manual_seed(0)
    m = PlainState().requires_grad_(False)
    before = _state(m)
    with pytest.raises(tgc.Unsupported, match=r"mul_ updates self\.p in place"):
        tgc.compile(m)(torch.randn(3, 2))
    for k, v in _state(m).items():
        assert torch.equal(v, before[k]), k


def test_batch_norm_training_updates_running_stats_once():
    """A BatchNorm in training mode (under no_grad) updates its running
    statistics in the call: the trace must not, before the eager run."""
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm1d(4).train()
    ref = copy.deepcopy(bn)
    x = torch.randn(8, 4)
    f = tgc.compile(bn, fallback=True)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            assert_same(f(x), ref(x), 1e-5, 1e-5)
            _same_state(bn, ref)


def test_backend_lifts_attributes_the_graph_updates():
    """A GraphModule that updates its attributes in place (as Dynamo's
    graph of an optimizer step does) compiles with them as inputs: no
    eager call, no graph break, the state as eager's after every call."""
    torch.manual_seed(0)
    m = ForeachState().requires_grad_(False)
    ref = copy.deepcopy(m)
    gm = torch.fx.GraphModule(m, _BufferProxies().trace(m))
    args = _grads()
    with torch.no_grad():
        f = _inference_backend(gm, args)
        for _ in range(3):
            f(*args)
            ref(*args)
            _same_state(gm, ref)
    assert any(n.op == "get_attr" for n in gm.graph.nodes)  # the caller's graph as it was
    report = tgc.explain(f._tgc_compiled)
    assert report.compiles == 1 and not report.graph_breaks and report.fallbacks == 0, str(report)


class _BufferProxies(torch.fx.Tracer):
    """Buffers read as graph attributes (as Dynamo's graphs read them), not
    as constants run at trace time."""
    proxy_buffer_attributes = True


def _has_tensor_scalars():
    try:
        torch._foreach_addcdiv([torch.ones(1)], [torch.ones(1)], [torch.ones(1)],
                               torch.ones(1))
        return True
    except (TypeError, RuntimeError):
        return False


@pytest.mark.skipif(not _has_tensor_scalars(),
                    reason="this PyTorch has no _foreach_addcdiv(..., Tensor scalars)")
def test_foreach_addcdiv_with_a_tensor_of_scalars():
    """_foreach_addcdiv_(params, a, b, scalars) with a 1-d tensor of one
    value per element (AdamW's step size under torch.compile)."""
    def f(p0, p1, a0, a1, b0, b1, s):
        torch._foreach_addcdiv_([p0, p1], [a0, a1], [b0, b1], s)
        torch._foreach_addcmul_([p0, p1], [a0, a1], [b0, b1], s * 2)
        return ()

    torch.manual_seed(0)
    args = [torch.randn(3, 2), torch.randn(3), torch.randn(3, 2), torch.randn(3),
            torch.rand(3, 2) + 0.5, torch.rand(3) + 0.5, torch.tensor([0.1, -0.3])]
    expected = [t.clone() for t in args]
    f(*expected)
    compiled = tgc.compile(f)
    compiled(*args)
    for a, e in zip(args, expected):
        assert_same(a, e, 1e-6, 1e-6)
    assert not tgc.explain(compiled).graph_breaks


def test_island_update_of_a_clone_leaves_the_input():
    """A graph break that updates a clone of an input in place (the clone
    is the input's value in the graph): the island updates its own copy,
    the caller's tensor keeps its values; of an alias (detach), the
    function is not compiled."""
    def f(x, i, v):
        return torch.ops.aten._index_put_impl_(x.clone(), (i,), v, accumulate=True,
                                               unsafe=False)

    torch.manual_seed(0)
    x, i, v = torch.rand(10, 8), torch.randint(0, 4, (5,)), torch.rand(5, 8)
    before = x.clone()
    compiled = tgc.compile(f)
    assert_same(compiled(x, i, v), f(before.clone(), i, v), 1e-6, 1e-6)
    assert torch.equal(x, before)

    def g(x, i, v):
        return torch.ops.aten._index_put_impl_(x.detach(), (i,), v, accumulate=True,
                                               unsafe=False)

    with pytest.raises(tgc.Unsupported, match="updates a parameter or an eager input"):
        tgc.compile(g)(x, i, v)


def test_inplace_keyword_updates_its_input():
    """F.relu(x, inplace=True) writes x as relu_ does: an argument is
    updated by the compiled call, a buffer is not written by the trace."""
    f = tgc.compile(lambda x: F.relu(x, inplace=True) * 2)
    for _ in range(2):  # the compiled call too
        a = torch.tensor([-1.0, 2.0, -3.0, 4.0])
        assert_same(f(a), torch.tensor([0.0, 4.0, 0.0, 8.0]))
        assert_same(a, torch.tensor([0.0, 2.0, 0.0, 4.0]))

    class ReluBuffer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", torch.tensor([-1.0, 2.0, -3.0, 4.0]))

        def forward(self, x):
            F.relu(self.b, inplace=True)
            return x + self.b

    m = ReluBuffer()
    ref = copy.deepcopy(m)
    g = tgc.compile(m, fallback=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            assert_same(g(torch.ones(4)), ref(torch.ones(4)))
            _same_state(m, ref)


def test_inplace_identity_on_a_view_compiles():
    """Dropout in eval mode with inplace=True (EfficientNet's classifier,
    after a flatten) returns its input: nothing is written, the view
    needs no update."""
    def f(x):
        y = torch.flatten(x * 2, 1)
        return F.dropout(y, p=0.2, training=False, inplace=True) + 1

    x = torch.randn(2, 3, 4)
    compiled = tgc.compile(f)
    assert_same(compiled(x), f(x))
    assert not tgc.explain(compiled).graph_breaks


def test_inplace_update_of_an_operators_own_view():
    """F.linear of a 3-d input returns a view of its 2-d product, so
    nn.ReLU(inplace=True) after nn.Linear updates a view (torchvision's
    Swin V2 position-bias MLP): no other tensor of the function holds that
    memory, so it compiles; an in-place update of a view the function can
    see through another tensor still does not."""
    m = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(inplace=True),
                            torch.nn.Linear(8, 3)).eval()
    x = torch.randn(1, 5, 2)
    assert m[0](x)._base is not None  # (the premise: PyTorch's own view)
    compiled = tgc.compile(m)
    with torch.no_grad():
        for shape in ((1, 5, 2), (2, 7, 2)):
            x = torch.randn(*shape)
            assert_same(compiled(x), m(x))
    assert not tgc.explain(compiled).graph_breaks

    def seen_twice(x, w, b):
        y = F.linear(x, w, b)
        z = y.reshape(-1)  # another tensor over y's memory
        F.relu(y, inplace=True)
        return z + 1

    args = (torch.randn(2, 3, 4), torch.randn(5, 4), torch.randn(5))
    assert F.linear(*args)._base is not None
    with pytest.raises(tgc.Unsupported, match="in-place update of a view"):
        tgc.compile(seen_twice, fallback=False)(*args)
