"""Wrong answers and internal errors found by trying TGC as a user would
(issue "Zero wrong answers on real models"): elementwise semantics, IR the
importer must not emit invalid, eager's result structure, and module state
that must be guarded."""

import collections
import dataclasses
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from conftest import assert_same

NAN = float("nan")


# --- elementwise semantics --------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.clamp_max(x, 2.0),  # computed clamp_min
        lambda x: torch.clamp_min(x, 2.0),
        lambda x: x.clamp(max=2.0),
        lambda x: x.clamp(2, 1),  # min > max: every element is max (NaN stays)
        lambda x: torch.fmax(x, torch.tensor([1.0, NAN, NAN, 1.0])),  # NaN loses
        lambda x: torch.fmin(x, torch.tensor(1.0)),
        lambda x: torch.fmax(torch.full((4,), NAN), x),
    ],
)
def test_clamp_and_nan_ignoring_max(fn):
    x = torch.tensor([-3.0, 0.5, NAN, 7.0])
    assert_same(tgc.compile(fn)(x), fn(x))


def test_integer_clamp():
    x = torch.tensor([1, 5, 9])
    for fn in (lambda a: a.clamp(2, 5), lambda a: a.clamp(2, 1), lambda a: torch.clamp_max(a, 4)):
        assert_same(tgc.compile(fn)(x), fn(x))


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a + b,
        lambda a, b: a * b,
        lambda a, b: torch.maximum(a, b),
        lambda a, b: torch.minimum(a, b),
        lambda a, b: a.amax(),
        lambda a, b: (a & ~b).amin(0),
    ],
)
def test_bool_arithmetic_is_logic(fn):
    # tgc.add / tgc.mul on i1 used to fail to verify ("the module does not parse").
    a = torch.tensor([True, False, True, False])
    b = torch.tensor([True, True, False, False])
    assert_same(tgc.compile(fn)(a, b), fn(a, b))


def test_integer_average_pooling_truncates_like_eager():
    x = torch.arange(36).reshape(1, 1, 6, 6) * 7 - 50
    for fn in (lambda a: F.avg_pool2d(a, 3, 1),
               lambda a: F.avg_pool2d(a, 2, 2, padding=1, count_include_pad=False)):
        assert_same(tgc.compile(fn)(x), fn(x))


def test_aten_convolution_reads_groups_from_its_own_position():
    # aten.convolution(x, w, b, stride, padding, dilation, transposed,
    # output_padding, groups): groups came out 0 ("groups must be >= 1").
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x, w):
        return F.conv2d(x, w, groups=2, padding=1)

    x, w = torch.randn(1, 4, 5, 5), torch.randn(4, 2, 3, 3)
    gm = make_fx(f)(x, w)
    assert_same(tgc.compile(gm)(x, w), f(x, w), rtol=1e-4, atol=1e-4)


# --- result structure and arguments ---------------------------------------------


Pair = collections.namedtuple("Pair", "a b")


@dataclasses.dataclass
class Output:
    hidden: torch.Tensor
    count: int


class ModelOutputLike(collections.OrderedDict):
    """Like transformers' ModelOutput: an OrderedDict subclass."""


def test_results_keep_eager_structure():
    x = torch.randn(2, 3)
    cases = [
        lambda a: a.shape,  # TypeError: TracedSize.__new__()
        lambda a: (a.shape, a + 1),
        lambda a: Output(a * 2, 3),  # Unsupported: an output of type Output
        lambda a: ModelOutputLike(y=a + 1),  # came back as a plain dict
        lambda a: Pair(a, a * 2),
        lambda a: {"x": [a, (a + 1,)], "n": None},
    ]
    for fn in cases:
        got, want = tgc.compile(fn)(x), fn(x)
        assert type(got) is type(want), (type(got), type(want))
        if isinstance(want, Output):
            assert_same(got.hidden, want.hidden) and got.count == want.count
        elif isinstance(want, dict):
            assert list(got) == list(want)
        elif isinstance(want, torch.Size):
            assert got == want


def test_namedtuple_and_dataclass_arguments_keep_their_type():
    seen = []

    def f(p, o):
        seen.append((type(p), type(o)))
        return p.a * o.count + p.b + o.hidden

    args = (Pair(torch.ones(2), torch.ones(2)), Output(torch.ones(2), 3))
    assert_same(tgc.compile(f)(*args), f(*args))
    assert seen[0] == (Pair, Output)  # the traced call saw the real types


# --- no invalid IR, no internal errors -------------------------------------------


def test_an_internal_error_is_an_unsupported_call_that_fallback_absorbs(monkeypatch):
    from tgc import _ops

    def broken(tr, real, x, *a, **k):
        raise KeyError("a bug")

    monkeypatch.setitem(_ops.HANDLERS, "relu", broken)
    f = lambda x: torch.relu(x) + 1  # noqa: E731
    with pytest.raises(tgc.Unsupported, match="internal error recording torch operator 'relu'"):
        tgc.compile(f, fullgraph=True)(torch.randn(3))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        g = tgc.compile(f, fullgraph=True, fallback=True)
        assert_same(g(torch.ones(3)), f(torch.ones(3)))
    e = tgc.explain(g)
    assert e.fallbacks == 1 and "internal error" in e.fallback_reasons[0]
    assert "1 call(s) run eagerly" in str(e)
    # By default the call is a graph break: relu runs eagerly, "+ 1" compiled.
    h = tgc.compile(f)
    x = torch.randn(3)
    assert_same(h(x), f(x))
    e = tgc.explain(h)
    assert e.fallbacks == 0 and len(e.graph_breaks) == 1, e
    assert "internal error" in e.graph_breaks[0].reason


# --- module state -----------------------------------------------------------------


@torch.no_grad()  # inference (with grad, tgc._autograd's path)
def test_training_flag_is_guarded():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5)).eval()
    c = tgc.compile(m, fullgraph=True, fallback=True)
    x = torch.randn(4, 8)
    assert_same(c(x), m(x))
    m.train()
    y = c(x)  # used to run the eval graph: no dropout
    # A second specialization, with dropout (a seed drawn per call): kept
    # values are the eval output doubled, about half are dropped.
    kept = y != 0
    torch.testing.assert_close(y[kept], (m[0](x) * 2)[kept])
    assert 0 < kept.float().mean().item() < 1
    e = tgc.explain(c)
    assert e.compiles == 2, e
    assert "self.1.training == False" in e.recompile_reasons[0], e.recompile_reasons
    assert any("self.1.training == False" in g for g in e.guards[0])


@torch.no_grad()  # inference (with grad, tgc._autograd's path)
def test_replaced_parameters_and_buffers_are_used():
    x = torch.randn(4, 8)
    lin = nn.Linear(8, 8)
    c = tgc.compile(lin)
    assert_same(c(x), lin(x))
    lin.weight = nn.Parameter(torch.zeros(8, 8))  # kept using the old tensor
    assert_same(c(x), lin(x))
    lin.load_state_dict({"weight": torch.ones(8, 8), "bias": torch.ones(8)})  # in place
    assert_same(c(x), lin(x))
    if "assign" in lin.load_state_dict.__code__.co_varnames:  # PyTorch >= 2.1
        lin.load_state_dict({"weight": torch.eye(8), "bias": torch.zeros(8)}, assign=True)
        assert_same(c(x), lin(x))
    assert tgc.explain(c).compiles == 1

    seq = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
    cs = tgc.compile(seq)
    assert_same(cs(x), seq(x))
    seq[0] = nn.Linear(8, 8)  # a replaced submodule
    assert_same(cs(x), seq(x))


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 5.0
        self.mode = "mul"

    def forward(self, x):
        return x * self.k if self.mode == "mul" else x + self.k


K = 3


def test_python_values_read_by_the_trace_are_guarded():
    m = Scale()
    c = tgc.compile(m)
    x = torch.ones(2)
    assert_same(c(x), m(x))
    m.k = 2.0  # stayed at its traced value
    assert_same(c(x), m(x))
    m.mode = "add"
    assert_same(c(x), m(x))
    reasons = tgc.explain(c).recompile_reasons
    assert "self.k == 5.0" in reasons[0] and "now 2.0" in reasons[0], reasons
    assert "self.mode == 'mul'" in reasons[1], reasons

    def uses_global(t):
        return t * K

    g = tgc.compile(uses_global)
    assert_same(g(x), uses_global(x))
    globals()["K"] = 4
    try:
        assert_same(g(x), uses_global(x))
    finally:
        globals()["K"] = 3
    assert "global K == 3" in tgc.explain(g).recompile_reasons[0]

    scale = 2.5

    def closure(t):
        return t * scale

    h = tgc.compile(closure)
    assert_same(h(x), closure(x))
    scale = 0.5  # noqa: F841 - read through the closure cell
    assert_same(h(x), closure(x))
    assert "closure scale == 2.5" in tgc.explain(h).recompile_reasons[0]


def test_tensor_index_results_are_never_constants():
    # PyTorch 1.13 does not route x[t] through torch functions: its result
    # was taken for a captured constant, and the next call with other
    # values returned the first call's answer.
    def masked(x):
        return x[x > 0].sum()

    def gathered(x, i):
        return x[i] * 2

    m = tgc.compile(masked, fullgraph=True, fallback=True)
    g = tgc.compile(gathered)
    torch.manual_seed(0)
    for _ in range(3):
        x = torch.randn(8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same(m(x), masked(x))
        i = torch.randint(0, 8, (5,))
        assert_same(g(x, i), gathered(x, i))
    assert tgc.explain(g).compiles == 1


def test_ir_the_verifier_rejects_is_reported_with_its_line(monkeypatch):
    from tgc import _ops

    def broken(tr, real, x, *a, **k):
        v = tr.value_of(x)
        return tr.graph.emit(f"tgc.relu {v.name} : tensor<7xq9>", [(real.dtype, v.shape)])[0]

    monkeypatch.setitem(_ops.HANDLERS, "relu", broken)
    with pytest.raises(tgc.Unsupported, match=r"does not verify .* in `%v1 = tgc.relu"):
        tgc.compile(lambda x: torch.relu(x) + 1, fullgraph=True)(torch.randn(3))


# --- in-place updates and the views that share their memory ----------------------


def _views_then_update_base(x):
    y = x * 1
    v = y.narrow(0, 0, 2)
    t = y.t()
    y.add_(1)  # v and t see it (they used to keep y's old value)
    return v, t


def _update_through_views(x):
    y = x * 2
    y.narrow(1, 1, 2).mul_(10)  # written into y
    y.select(0, 1).add_(100)
    return y, y.sum(0)


def _slice_copy_into_input(x):
    x.narrow(0, 1, 2).copy_(x[0:2] * 0 + 5)  # e2e SliceCopy*: into the caller's x
    return x


def _island_updates_base(x):
    y = x + 1
    v = y.narrow(0, 0, 2)
    y.cumprod_(0)  # a graph break updating y: v is recomputed after it
    return v * 1


@pytest.mark.parametrize("fn", [_views_then_update_base, _update_through_views,
                                _slice_copy_into_input, _island_updates_base],
                         ids=lambda f: f.__name__)
def test_views_see_in_place_updates(fn):
    for n in (4, 4, 6):
        x = torch.randn(n, 4)
        x1 = x.clone()
        got, want = tgc.compile(fn)(x), fn(x1)
        assert_same(got, want)
        assert_same(x, x1)  # the same update of the input


def test_stale_view_is_reported_not_returned():
    def f(x):
        y = x * 1
        d = y.as_strided((3,), (4,))  # a view no handler makes (a graph break)
        y.add_(1)
        return d

    with pytest.raises(tgc.Unsupported, match="updated in place after the view was made"):
        tgc.compile(f)(torch.randn(3, 3))


def test_memory_rebinding_is_not_compiled():
    # `x.data = z` leaves views of x's old memory behind; a graph break
    # replayed it on a copy, and the view read the new value (a wrong
    # answer). It is refused, or with fallback runs eagerly.
    def f(x, z):
        a = x.view(-1)
        x.data = z
        x.add_(1)
        return a * 2, x + 0

    with pytest.raises(tgc.Unsupported, match=r"x.data = \.\.\. makes a tensor use other memory"):
        tgc.compile(f)(torch.zeros(4), torch.ones(4))
    x, z, x1, z1 = torch.zeros(4), torch.ones(4), torch.zeros(4), torch.ones(4)
    with pytest.warns(UserWarning, match="runs eagerly"):
        got = tgc.compile(f, fallback=True)(x, z)
    assert_same(got, f(x1, z1))
    assert_same(x, x1)
    assert_same(z, z1)


def _setitem_cases():
    def whole(x, v):
        y = x * 1
        y[:] = v  # a bare slice: PyTorch 1.13 did not route it (stale y)
        return y

    def box(x, v):
        y = x + 1
        t = y.t()  # a view made before: sees the update
        y[1:3, :2] = v[0, :2]
        y[..., -1] = 0.5
        y[0] = v[1]
        return y, t * 1

    def mask(x, v):
        y = x * 1
        y[x > 0] = 0.0  # index_put: a graph break updating a copy of y
        return y + v

    def into_input(x, v):
        x[1:, 1] = v[0, 0]
        return x * 2

    return [whole, box, mask, into_input]


@pytest.mark.parametrize("fn", _setitem_cases(), ids=lambda f: f.__name__)
def test_setitem_matches_eager(fn):
    c = tgc.compile(fn)
    for n in (4, 4, 6):  # 6: the size becomes dynamic (a cut there is a graph break)
        x, v = torch.randn(n, 5), torch.randn(n, 5)
        x1 = x.clone()
        assert_same(c(x, v), fn(x1, v))
        assert_same(x, x1)
    c = tgc.compile(fn)
    c(torch.randn(4, 5), torch.randn(4, 5))
    breaks = [b.op for b in tgc.explain(c).graph_breaks]
    assert breaks == (["__setitem__"] if fn.__name__ == "mask" else []), breaks


def test_augmented_assignment_into_an_index():
    # Python's x[i] += v: an in-place update of the view x[i], then
    # x[i] = view; both written into x.
    def f(x):
        y = x * 1
        y[:, 0] += 1
        y[1:3, 2:] *= 2
        y[..., -1].clamp_(max=0.1)
        x[0] += 5
        return y, x.sum()

    x = torch.randn(4, 5)
    x1 = x.clone()
    c = tgc.compile(f, fullgraph=True)
    assert_same(c(x), f(x1))
    assert_same(x, x1)


def test_default_dtype_is_guarded():
    """torch.ones(3) is in torch.get_default_dtype(): a specialization
    traced under float32 served a call under float64 (the native path
    too), returning float32 where eager returns float64."""
    def f(x):
        return x + torch.ones(3)

    c = tgc.compile(f)
    x = torch.randn(3)
    old = torch.get_default_dtype()
    try:
        with torch.no_grad():
            c(x)
            c(x)  # the native path's from here
            for dt in (torch.float64, torch.float32, torch.float64):
                torch.set_default_dtype(dt)
                got, want = c(x), f(x)
                assert got.dtype == want.dtype, (dt, got.dtype, want.dtype)
                torch.testing.assert_close(got, want)
    finally:
        torch.set_default_dtype(old)
    assert tgc.explain(c).compiles == 2
    assert any("torch.get_default_dtype() was torch.float32, now torch.float64" in r
               for r in tgc.explain(c).recompile_reasons)

    # Training specializations too.
    w = torch.randn(3, requires_grad=True)
    t = tgc.compile(lambda x, w: (x * w + torch.ones(3)).sum())
    try:
        for dt in (torch.float32, torch.float64):
            torch.set_default_dtype(dt)
            out = t(x, w)
            assert out.dtype == (x * w + torch.ones(3)).sum().dtype == \
                torch.promote_types(torch.float32, dt)
            out.backward()
    finally:
        torch.set_default_dtype(old)
    assert "torch.get_default_dtype() differs" in str(tgc.explain(t))


def test_mutable_closures_defaults_and_attributes_are_guarded_by_contents():
    """A list the trace read, changed in place, is the same object: its
    contents are what the guard compares (before, the stale value was
    compiled in: a wrong answer)."""
    x = torch.randn(4)
    scale = [2.0]
    c = tgc.compile(lambda x: x * scale[0])
    c(x)
    c(x)
    scale[0] = 5.0
    torch.testing.assert_close(c(x), x * 5.0)

    def with_default(x, s=[1.0]):  # noqa: B006 - the case under test
        return x * s[0]

    d = tgc.compile(with_default)
    d(x)
    d(x)
    with_default.__defaults__[0][0] = 4.0
    torch.testing.assert_close(d(x), x * 4.0)

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.factors = {"a": 1.0, "b": [2.0, 3.0]}

        def forward(self, x):
            return x * self.factors["b"][1]

    m = Scaled()
    cm = tgc.compile(m)
    cm(x)
    cm(x)
    m.factors["b"][1] = 7.0
    torch.testing.assert_close(cm(x), x * 7.0)
    assert tgc.explain(cm).compiles == 2


def test_module_hooks_registered_after_compiling_are_honored():
    """A forward hook registered (or removed) after the compile changes
    what the module computes; the specialization traced before it was
    served anyway (the native path too): a wrong answer."""
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    c = tgc.compile(m)
    x = torch.randn(3, 4)
    with torch.no_grad():
        c(x)
        c(x)  # the native path's
        handle = m[0].register_forward_hook(lambda mod, inp, out: out * 10)
        torch.testing.assert_close(c(x), m(x))
        torch.testing.assert_close(c(x), m(x))
        handle.remove()
        torch.testing.assert_close(c(x), m(x))
        pre = nn.modules.module.register_module_forward_pre_hook(
            lambda mod, inp: tuple(i + 1 for i in inp))
        try:
            torch.testing.assert_close(c(x), m(x))
        finally:
            pre.remove()
        torch.testing.assert_close(c(x), m(x))
    assert "a module hook was registered or removed" in str(tgc.explain(c))


def test_tracing_other_functions_does_not_invalidate_specializations():
    """The tracer's own module hooks (op locations) change no compiled
    call: compiling another function must not recompile this one."""
    m = nn.Linear(4, 4)
    c = tgc.compile(m)
    x = torch.randn(2, 4)
    with torch.no_grad():
        c(x)
        other = tgc.compile(nn.Linear(4, 2))
        other(x)
        c(x)
    assert tgc.explain(c).compiles == 1


def test_aliased_arguments_updated_in_place_run_eagerly():
    """f(x, x) where f updates its first argument in place and reads the
    second: valid PyTorch (program order on shared memory). The compiled
    code writes arg 0 as an out buffer that must not overlap arg 1: such
    calls raised 'invalid arguments'; they run eagerly now, once compiled
    for non-overlapping arguments."""
    def f(a, b):
        a.add_(1)
        return b * 2

    c = tgc.compile(f)
    with torch.no_grad():
        for _ in range(3):
            x, y = torch.arange(4.0), torch.arange(4.0)
            got, want = c(x, x), f(y, y)
            assert torch.equal(got, want) and torch.equal(x, y)
        x, z = torch.arange(4.0), torch.arange(4.0)
        assert torch.equal(c(x, z), torch.arange(4.0) * 2) and torch.equal(x, z + 1)
    e = tgc.explain(c)
    assert e.compiles == 1
    assert any("overlap a buffer it writes" in r for r in e.fallback_reasons)


def test_tf32_guard_names_the_flag_that_changed():
    """A CUDA specialization records the TF32 flags its f32 products were
    compiled under (tgc._state.tf32_record) and serves only calls under
    them; the guard says which flag changed. (The GPU compile itself:
    test_gpu.py::test_tf32_follows_pytorchs_flags.)"""
    from tgc import _state

    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    enabled = torch.backends.cudnn.enabled
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = True
        assert _state.tf32_flags() == (False, True)
        record = _state.tf32_record(["convolutions"], _state.tf32_flags())
        assert record == (("convolutions", True),)
        guard = _state.Tf32Guard(record)
        assert guard.check() is None
        torch.backends.cuda.matmul.allow_tf32 = True  # not a flag it depends on
        assert guard.check() is None
        torch.backends.cudnn.allow_tf32 = False
        assert guard.check().startswith("torch.backends.cudnn.allow_tf32 ")
        assert guard.check().endswith(" was True when compiled, False now")
        # With cuDNN disabled, eager convolutions are cuBLAS GEMMs: the
        # matmul flag governs them.
        torch.backends.cudnn.allow_tf32 = True
        torch.backends.cudnn.enabled = False
        assert _state.tf32_flags() == (True, True)
        torch.backends.cuda.matmul.allow_tf32 = False
        assert _state.tf32_flags() == (False, False)
        assert "was True when compiled, False now" in guard.check()
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved
        torch.backends.cudnn.enabled = enabled


# --- found by a sweep of user idioms (2026-11-30) ------------------------------


def test_clamp_with_a_nan_bound_is_eager():
    # tgc.clamp refuses a NaN bound: it was an internal compile error.
    x = torch.tensor([1.0, -2.0, float("nan"), 3.0])
    for f in (lambda x: torch.clamp(x, min=float("nan")),
              lambda x: x.clamp(max=float("nan")) * 2,
              lambda x: torch.clamp(x, float("nan"), 1.0)):
        assert_same(tgc.compile(f)(x), f(x))


def test_floor_divide_of_floats_is_div_floor():
    # floor(a / b) gave inf // 2 = inf (eager: NaN) and 3 // -inf = -0.
    inf = float("inf")
    x = torch.tensor([inf, -inf, 5.0, -5.0, 0.0, 7.5, -0.0])
    y = torch.tensor([2.0, 2.0, -inf, inf, 3.0, -2.0, 3.0])
    for f in (lambda x, y: x // y, lambda x, y: y // x, lambda x, y: torch.floor_divide(x, 2),
              lambda x, y: 3.0 // x):
        assert_same(tgc.compile(f)(x, y), f(x, y))


@pytest.mark.parametrize("dynamic", [True, None])
def test_expand_as_with_dynamic_sizes(dynamic):
    # The graph had no size operand for the dynamic size: IR that did not verify.
    f = lambda x, y: x.expand_as(y) * 1  # noqa: E731
    c = tgc.compile(f, dynamic=dynamic)
    for a, b in (((1, 3), (2, 3)), ((1, 3), (5, 3)), ((4, 1), (4, 6)), ((3,), (2, 4, 3))):
        x, y = torch.randn(*a), torch.randn(*b)
        assert_same(c(x, y), f(x, y))


def test_captured_tensors_with_permuted_layouts():
    # A transposed parameter or global, or channels_last convolution
    # weights: compiled code reads arguments as row-major and the new
    # specialization rejected them ("internal error ... arg1 contiguous").
    torch.manual_seed(0)
    x = torch.randn(3, 4)
    lin = nn.Linear(4, 5)
    lin.weight = nn.Parameter(torch.randn(4, 5).t())
    W = torch.randn(4, 6).t()
    with torch.no_grad():
        c = tgc.compile(lin)
        assert_same(c(x), lin(x))
        lin.weight.mul_(2)  # in place: the same memory, seen
        assert_same(c(x), lin(x))
        lin.weight = nn.Parameter(torch.randn(4, 5).t())  # replaced, found by name
        assert_same(c(x), lin(x))
        g = lambda x: x @ W.t()  # noqa: E731
        assert_same(tgc.compile(g)(x), g(x))
        conv = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 1)).to(
            memory_format=torch.channels_last)
        img = torch.randn(2, 3, 10, 10)
        cc = tgc.compile(conv)
        assert_same(cc(img), conv(img), atol=1e-5)
        # The parameter's memory swapped under the same object (.data, as
        # Module._apply, EMA swaps and sharded training do): the dense view
        # made at trace time read the old memory.
        conv[0].weight.data = torch.randn_like(conv[0].weight)
        assert_same(cc(img), conv(img), atol=1e-5)
        conv.to(memory_format=torch.contiguous_format)
        conv[0].weight.mul_(2)
        assert_same(cc(img), conv(img), atol=1e-5)
        lin.weight.data = torch.randn(4, 5).t()
        assert_same(c(x), lin(x))


def test_captured_tensor_with_gaps_is_reported():
    # Not a permutation of a dense layout: a clear error (it was an internal
    # one), or eager with fallback=True.
    base = torch.randn(4, 8)
    G = base[:, ::2]
    f = lambda x: x * G + 1  # noqa: E731
    x = torch.randn(4, 4)
    with pytest.raises(tgc.Unsupported, match="not a permutation of a row-major one"):
        tgc.compile(f)(x)
    with pytest.warns(UserWarning, match="runs eagerly"):
        assert_same(tgc.compile(f, fallback=True)(x), f(x))


def test_in_place_update_of_a_transposed_global_is_reported():
    # As for a row-major one: never an update of the dense view alone.
    W = torch.zeros(3, 2).t()
    W2 = torch.empty_strided((2, 3), (1, 2)).zero_()  # permuted, not a view

    def f(x):
        W.add_(x)
        return W * 2

    def g(x):
        W2.add_(x)
        return W2 * 2
    for fn in (f, g):
        with pytest.raises(tgc.Unsupported, match="updates W2? in place, a tensor from outside"):
            tgc.compile(fn)(torch.ones(2, 3))


def test_update_through_an_argument_that_aliases_a_noncontiguous_one():
    # y = x.t(): y was made contiguous (a copy) for the call, and the
    # compiled code's update of x was not seen through y.
    def f(x, y):
        x.add_(1)
        return x + y
    a = torch.zeros(2, 2)
    want = f(a, a.t())
    b = torch.zeros(2, 2)
    assert_same(tgc.compile(f)(b, b.t()), want)
    assert torch.equal(b, a)


def test_in_place_update_through_data_or_detach_of_an_input():
    # The update of x.data (another tensor object over x's memory) was
    # dropped: x and the caller's tensor kept their old values.
    def f(x):
        x.data.mul_(2)
        return x

    def g(x, y):
        x.detach().add_(y)
        return y * 2

    def h(x):
        d = x.detach()
        d.mul_(2)
        return d + 1, x * 3

    for fn, n in ((f, 1), (g, 2), (h, 1)):
        a = [torch.ones(3) for _ in range(n)]
        b = [torch.ones(3) for _ in range(n)]
        assert_same(tgc.compile(fn)(*b), fn(*a))
        assert torch.equal(a[0], b[0])


def test_layout_reads_on_non_dense_arguments_run_eagerly():
    # The trace ran on a dense copy: x.is_contiguous(), x.stride() and
    # x.storage_offset() answered for the copy, not the caller's tensor.
    x = torch.arange(6.0).view(3, 2).t()
    y = torch.arange(4.0)[1:]
    f = lambda x: x * 2 if x.is_contiguous() else x * 3  # noqa: E731
    g = lambda x: (x.stride(), x + 0)  # noqa: E731
    h = lambda x: x * x.storage_offset()  # noqa: E731
    for fn, arg in ((f, x), (g, x), (h, y), (f, x.contiguous())):
        c = tgc.compile(fn)
        assert_same(c(arg), fn(arg))
    c = tgc.compile(f)
    assert_same(c(x.contiguous()), f(x.contiguous()))  # traced dense
    assert_same(c(x), f(x))  # then a transposed one: eager


def test_indexing_with_a_tuple_of_tensors_or_a_bool():
    # PyTorch 1.13 routes neither x[i, j] (tensors only) nor x[True]
    # through torch functions: the result was a constant of the first call.
    x1 = torch.arange(16.0).view(4, 4)
    x2 = x1 * 10 + 1
    calls = ((x1, torch.tensor([0, 3]), torch.tensor([1, 2])),
             (x2, torch.tensor([1, 2]), torch.tensor([3, 3])))

    def add_at(x, i, j):
        y = x.clone()
        y[i, j] += 1
        return y

    for f in (lambda x, i, j: x[i, j], lambda x, i, j: x[i, i], lambda x, i, j: x[(i, j)] + 1,
              lambda x, i, j: x[True] * 2, lambda x, i, j: x[[0, 2], [1, 3]] * 2, add_at):
        c = tgc.compile(f)
        for args in calls:
            assert_same(c(*args), f(*args))


def test_several_index_tensors_along_dynamic_sizes():
    """x[b, kv] with broadcast aranges (Hugging Face's padding mask
    function, which runs under is_compiling) and x[:, i, j], with sizes
    that change: one compile; an entry out of its dim's range is an error
    (it used to read another element of the flattened dims: x[0, 5] of a
    6 x 7 tensor gave x[0, 5], of a 3 x 4 one x[1, 1])."""
    def mask_fn(pm):
        B, T = pm.shape
        b = torch.arange(B)[:, None, None, None]
        kv = torch.arange(T)[None, None, None, :]
        q = torch.arange(T)[None, None, :, None]
        return pm[b, kv] & (kv <= q)

    g = tgc.compile(mask_fn, fullgraph=True, dynamic=True)
    for B, T in [(2, 5), (3, 9), (4, 17)]:
        pm = torch.rand(B, T) > 0.3
        assert_same(g(pm), mask_fn(pm))
    assert tgc.explain(g).compiles == 1

    def cols(x, i, j):
        return x[:, i, j] + 1

    h = tgc.compile(cols, fullgraph=True, dynamic=True)
    for n in (4, 6, 9):
        x, i, j = torch.randn(2, n, n + 1), torch.randint(-n, n, (3,)), torch.randint(0, n + 1, (3,))
        assert_same(h(x, i, j), cols(x, i, j))
    assert tgc.explain(h).compiles == 1
    for f in (h, tgc.compile(cols, fullgraph=True, dynamic=False)):
        x = torch.randn(2, 6, 7)
        f(x, torch.tensor([0, 1, 2]), torch.tensor([1, 0, 0]))
        with pytest.raises((IndexError, tgc.TgcError), match="out of"):
            f(x, torch.tensor([0, 1, 2]), torch.tensor([7, 0, 0]))
        with pytest.raises((IndexError, tgc.TgcError), match="out of"):
            f(x, torch.tensor([0, -7, 2]), torch.tensor([1, 0, 0]))


@pytest.mark.parametrize("dynamic", [None, True])
def test_lists_and_ellipsis_in_advanced_indices_compile(dynamic):
    """A list inside an index is an index tensor to PyTorch (HF Falcon's
    `qkv[:, :, :, [-2]]` and `fused_qkv[..., [-2], :]`), as is a 1-d list of
    bools (its Trues' positions); an ellipsis before an index tensor: each
    compiles, with no graph break, and follows the sizes."""
    fns = [lambda q: q[:, :, :, [-2]] * 1, lambda q: q[..., [-1], :] + 0,
           lambda q: q[[0, 1]] * 2, lambda q: q[:, [True, False, True]] * 1,
           lambda q: q[[[0], [1]], [0, 2]] * 1, lambda q: q[:, [0, 2], :, [1, 0]] * 1,
           lambda q: q[..., torch.tensor([1, 0])] * 1, lambda q: q[0, ..., torch.tensor([2]), :] * 1]
    for fn in fns:
        f = tgc.compile(fn, dynamic=dynamic)
        for shape in ((2, 3, 4, 5), (3, 3, 6, 5)):
            x = torch.randn(*shape)
            assert_same(f(x), fn(x))
        assert not tgc.explain(f).graph_breaks


def test_python_bools_in_indices_are_new_dims():
    """x[True] is x[None] to PyTorch (x[False] an empty dim): the tracer
    read a bool as the integer 1 or 0 (y[True] = 1 wrote row 1 only, of the
    caller's tensor too; x[True, i] checked i against the wrong dim)."""
    def set_all(x):
        y = x.clone()
        y[True] = 1
        return y

    def set_col(x):
        y = x.clone()
        y[True, 0] = 5
        return y

    def into_input(x):
        x[True] = 1
        return x * 1

    fns = [set_all, set_col, lambda x: x[True] * 2,
           lambda x: x[True, 0] + x[0, True] + x[:, True].sum() + x[..., True].sum(),
           lambda x: x[False] * 1]
    for fn in fns:
        c = tgc.compile(fn)
        for _ in range(2):
            x = torch.arange(6.0).reshape(2, 3)
            assert_same(c(x), fn(x))
    x1, x2 = torch.zeros(2, 3), torch.zeros(2, 3)
    tgc.compile(into_input)(x1)
    into_input(x2)
    assert_same(x1, x2)
    c = tgc.compile(lambda x, i: x[True, i])
    x = torch.arange(12.0).reshape(4, 3)
    for i in ([0, 1], [3, 2]):
        assert_same(c(x, torch.tensor(i)), x[True, torch.tensor(i)])


def test_list_indices_are_what_pytorch_makes_of_them():
    # A short list holding a tensor, a list, a slice, None or ... is a tuple
    # to PyTorch; routing it as one index changed its meaning.
    x = torch.arange(24.0).view(3, 4, 2)
    t0, t1 = torch.tensor(0), torch.tensor(1)
    fs = [lambda x: x[[[0, 1], [1, 0]]] * 1, lambda x: x[[[0, 2]]] * 1,
          lambda x: x[[0, slice(None)]] * 1, lambda x: x[[None, 0]] * 1,
          lambda x: x[[t0, t1]] * 1, lambda x: x[[0, 2]] * 1]
    for f in fs:
        assert_same(tgc.compile(f)(x), f(x))

    def setitem(x):
        y = x.clone()
        y[[[0, 1], [1, 0]]] = -1
        return y
    assert_same(tgc.compile(setitem)(x), setitem(x))


@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_a_tensor_returned_twice_is_one_object(mode):
    """`return y, y` gave two tensors: an update of one was not seen
    through the other, as it is in eager (found by a helper's sweep)."""
    def f(x):
        y = x + 1
        return y, y, {"a": y, "b": x}, x

    for dynamic in (None, True):
        c = tgc.compile(f, mode=mode, dynamic=dynamic)
        for n in (2, 3, 2):
            x = torch.zeros(n)
            a, b, d, same = c(x)
            assert a is b and d["a"] is a and d["b"] is x and same is x
            a.add_(5)
            assert b.tolist() == [6.0] * n


@pytest.mark.parametrize("causal", [False, True])
def test_masks_built_from_aranges(causal):
    """Hugging Face's masks come from aranges (masking_utils): padding masks
    without padding fold to true at compile time, and with them the
    attention's mask and `_safe_softmax`'s guard of fully masked rows
    (amax of the mask, a where); a causal mask folds to a triangle (small
    sizes) or is computed. Results as eager's either way."""
    def f(q, k, pad):
        b, t, _ = q.shape
        rows = torch.arange(t)[None, None, :, None]
        cols = torch.arange(t)[None, None, None, :]
        keep = (rows >= 0).expand(b, 1, t, t) if not causal else (cols <= rows).expand(b, 1, t, t)
        keep = keep & pad[:, None, None, :]
        s = (q @ k.transpose(-1, -2))[:, None] / 4.0
        s = s.masked_fill(~keep, float("-inf"))
        p = torch.softmax(s, -1)
        any_kept = keep.int().amax(-1, keepdim=True) > 0
        return torch.where(any_kept, p, torch.zeros(()))

    for t in (8, 40):  # 40 x 40 = 1600: over the 1024 elements folded
        q, k = torch.randn(2, t, 16), torch.randn(2, t, 16)
        ones = torch.ones(2, t, dtype=torch.bool)
        some = ones.clone()
        some[1, : t // 2] = False
        c = tgc.compile(f)
        for pad in (ones, some):
            assert_same(c(q, k, pad), f(q, k, pad), rtol=1e-5, atol=1e-6)

        def no_padding(q, k):  # the whole mask is data-independent
            return f(q, k, torch.ones(q.shape[0], q.shape[1], dtype=torch.bool))
        assert_same(tgc.compile(no_padding)(q, k), no_padding(q, k), rtol=1e-5, atol=1e-6)
