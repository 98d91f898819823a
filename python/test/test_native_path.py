"""The native call path (tgc._native_path, lib/Python/tgc_native.c): which
calls it serves, that everything else still takes the Python path, and
that neither gives a stale or wrong answer (issue 20)."""

import os
import subprocess
import sys
import threading

import pytest
import torch
import torch.nn as nn

import tgc
from tgc import _native_path

native = pytest.mark.skipif(_native_path.load() is None,
                            reason="the native call path is not built")
cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 4)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


@native
def test_steady_calls_are_native_and_right():
    m = MLP().eval()
    f = tgc.compile(m)
    x = torch.randn(3, 8)
    with torch.no_grad():
        for _ in range(5):
            torch.testing.assert_close(f(x), m(x))
    assert f._native_calls() == 4  # the first call compiled
    assert f.explain().hits == [4]


@native
def test_outputs_tuple_list_and_inputs_returned():
    f = tgc.compile(lambda a, b: (a + b, a))
    g = tgc.compile(lambda a: [a * 2, a - 1])
    a, b = torch.randn(4), torch.randn(4)
    for _ in range(3):
        s, same = f(a, b)
        assert same is a
        torch.testing.assert_close(s, a + b)
        out = g(a)
        assert isinstance(out, list)
        torch.testing.assert_close(out[1], a - 1)
    assert f._native_calls() == 2 and g._native_calls() == 2


@native
def test_calls_it_leaves_to_python_are_right():
    f = tgc.compile(lambda a, b: a * b + 1)
    a, b = torch.randn(4, 6), torch.randn(4, 6)
    f(a, b)
    f(a, b)
    n = f._native_calls()
    torch.testing.assert_close(f(a.t().contiguous().t(), b), a * b + 1)  # not contiguous
    torch.testing.assert_close(f(a, b=b), a * b + 1)  # a keyword argument
    torch.testing.assert_close(f(a[:, ::2], b[:, ::2]), a[:, ::2] * b[:, ::2] + 1)
    assert f._native_calls() == n


@native
def test_new_sizes_and_dtypes_recompile_through_python():
    f = tgc.compile(lambda a: a.sum(0) * 2)
    for shape, dtype in [((4, 3), torch.float32), ((4, 3), torch.float32),
                         ((5, 3), torch.float32), ((4, 3), torch.float64),
                         ((4, 3), torch.float32), ((5, 3), torch.float32)]:
        x = torch.randn(shape, dtype=dtype)
        torch.testing.assert_close(f(x), x.sum(0) * 2)
    assert f._native_calls() >= 2


@native
def test_module_state_changes_are_seen():
    m = MLP().eval()
    f = tgc.compile(m)
    x = torch.randn(2, 8)
    with torch.no_grad():
        f(x)
        f(x)
        # A replaced parameter: the native path's list is made again.
        m.fc1.weight = nn.Parameter(torch.randn(16, 8))
        torch.testing.assert_close(f(x), m(x))
        torch.testing.assert_close(f(x), m(x))
        # Written in place: same memory, read on the next call.
        m.fc2.bias.add_(1.0)
        torch.testing.assert_close(f(x), m(x))
        # A parameter whose data became another size: guards fail, recompile.
        m.fc2.weight.data = torch.randn(6, 16)
        m.fc2.bias.data = torch.randn(6)
        torch.testing.assert_close(f(x), m(x))
        # A Python value the trace read.
        m.act.inplace = True
        torch.testing.assert_close(f(x), m(x))
    assert f.explain().compiles >= 2


@native
def test_globals_read_by_the_trace_are_guarded():
    g = {"scale": 2.0}
    exec("def fn(x):\n    return x * scale\n", g)
    f = tgc.compile(g["fn"])
    x = torch.randn(5)
    f(x)
    torch.testing.assert_close(f(x), x * 2.0)
    g["scale"] = 3.0
    torch.testing.assert_close(f(x), x * 3.0)
    g["scale"] = 3  # an int now: a different guard value (promotion may differ)
    torch.testing.assert_close(f(x), x * 3)
    assert f.explain().compiles == 3


@native
def test_an_equal_tuple_built_anew_stays_native():
    # A guarded tuple replaced by an equal one (a config rebuilt per call)
    # is the same value: the native path must not hand every later call to
    # Python; a different tuple is a different value.
    g = {"shape": (2, 5)}
    exec("def fn(x):\n    return x.reshape(shape) * 2\n", g)
    f = tgc.compile(g["fn"])
    x = torch.randn(10)
    f(x)
    for _ in range(3):
        g["shape"] = tuple([2, 5])
        torch.testing.assert_close(f(x), x.reshape(2, 5) * 2)
    assert f._native_calls() == 3
    g["shape"] = (5, 2)
    torch.testing.assert_close(f(x), x.reshape(5, 2) * 2)
    assert f.explain().compiles == 2


@native
def test_in_place_updates_of_inputs():
    def bump(x):
        x.add_(1)
        return x * 2

    f = tgc.compile(bump)
    x = torch.zeros(3)
    for i in range(1, 4):
        torch.testing.assert_close(f(x), torch.full((3,), 2.0 * i))
        torch.testing.assert_close(x, torch.full((3,), float(i)))
    assert f._native_calls() == 2


@native
def test_stance_and_checking_turn_it_off():
    f = tgc.compile(lambda a: a + 1)
    x = torch.randn(3)
    f(x)
    f(x)
    n = f._native_calls()
    try:
        tgc.set_stance("force_eager")
        torch.testing.assert_close(f(x), x + 1)
        assert f._native_calls() == n
    finally:
        tgc.set_stance("default")
    try:
        tgc.set_check("reference")
        torch.testing.assert_close(f(x), x + 1)
        assert f._native_calls() == n
    finally:
        tgc.set_check("")
    f(x)
    assert f._native_calls() == n + 1


@native
def test_threads_share_a_compiled_function():
    f = tgc.compile(lambda a, b: torch.relu(a - b))
    inputs = [(torch.randn(64), torch.randn(64)) for _ in range(8)]
    f(*inputs[0])
    errors = []

    def work(a, b):
        try:
            for _ in range(50):
                torch.testing.assert_close(f(a, b), torch.relu(a - b))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=p) for p in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert f._native_calls() == 400


@native
def test_tensors_of_other_devices_take_the_python_path():
    f = tgc.compile(lambda a: a * 2)
    x = torch.randn(3)
    f(x)
    f(x)
    with pytest.raises(tgc.Unsupported, match="device meta"):
        f(torch.empty(3, device="meta"))  # never run as a CPU tensor
    assert f._native_calls() == 1


def test_off_by_environment():
    code = ("import torch, tgc\nfrom tgc import _native_path\n"
            "assert _native_path.load() is None\n"
            "f = tgc.compile(lambda a: a * 3)\nx = torch.ones(2)\n"
            "assert f(x).tolist() == [3.0, 3.0] and f(x).tolist() == [3.0, 3.0]\n"
            "assert not hasattr(f, '_native_calls')\nprint('ok')\n")
    package = os.path.dirname(os.path.dirname(os.path.abspath(tgc.__file__)))
    env = dict(os.environ, TGC_NATIVE="0",
               PYTHONPATH=os.pathsep.join([package, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# --- CUDA: PyTorch's stream, no wait, no copy ----------------------------------


@cuda
def test_cuda_results_in_stream_order():
    f = tgc.compile(lambda a, b: torch.relu(a + b) * 2)
    a = torch.randn(1 << 20, device="cuda")
    b = torch.randn(1 << 20, device="cuda")
    outs = [f(a, b) for _ in range(20)]  # back to back, no synchronization
    torch.cuda.synchronize()
    for out in outs:
        torch.testing.assert_close(out, torch.relu(a + b) * 2)
    # Results are distinct tensors: a later call does not overwrite them.
    assert len({o.data_ptr() for o in outs}) == len(outs)


@cuda
def test_cuda_inputs_written_just_before_the_call():
    f = tgc.compile(lambda a: a.sum() + a.max())
    a = torch.zeros(1 << 22, device="cuda")
    for i in range(5):
        a.fill_(float(i))  # queued on the stream before the call
        out = f(a)
        torch.testing.assert_close(out.cpu(), torch.tensor(float(i) * (1 << 22) + i))


@cuda
def test_cuda_side_stream():
    f = tgc.compile(lambda a: torch.softmax(a * 3, dim=-1))
    a = torch.randn(512, 1024, device="cuda")
    expected = torch.softmax(a * 3, dim=-1)
    f(a)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        outs = [f(a) for _ in range(4)]
    s.synchronize()
    for out in outs:
        torch.testing.assert_close(out, expected)
    # Back on the default stream after the side stream's calls.
    torch.testing.assert_close(f(a), expected)


@cuda
def test_cuda_graph_results_survive_the_next_replay():
    f = tgc.compile(lambda a, w: torch.relu(a @ w) + 1, mode="reduce-overhead")
    a = torch.randn(64, 64, device="cuda")
    w = torch.randn(64, 64, device="cuda")
    expected = torch.relu(a @ w) + 1
    outs = [f(a, w) for _ in range(6)]
    torch.cuda.synchronize()
    for out in outs:
        torch.testing.assert_close(out, expected, rtol=1e-3, atol=1e-3)


@native
def test_other_output_structures_are_built_in_python():
    import collections

    Out = collections.namedtuple("Out", "y n")
    f = tgc.compile(lambda a: {"y": a * 2, "rows": a.shape[0]})
    g = tgc.compile(lambda a: Out(a + 1, a.shape))
    for rows in (3, 3, 3):
        a = torch.randn(rows, 2)
        out = f(a)
        assert out["rows"] == rows
        torch.testing.assert_close(out["y"], a * 2)
        o = g(a)
        assert isinstance(o, Out) and o.n == a.shape
    assert f._native_calls() == 2 and g._native_calls() == 2


@cuda
def test_cuda_capture_into_a_foreign_graph_is_refused():
    f = tgc.compile(lambda a: a * 2 + 1)
    a = torch.randn(1024, device="cuda")
    f(a)
    f(a)
    g = torch.cuda.CUDAGraph()
    with pytest.raises(Exception, match="captured into a CUDA graph"):
        with torch.cuda.graph(g):
            f(a)
    torch.cuda.synchronize()
    torch.testing.assert_close(f(a), a * 2 + 1)  # usable after the refusal


@native
@cuda
def test_cuda_calls_that_would_wait_let_the_gil_go():
    """A native CUDA run keeps the GIL unless the runtime would wait: new
    GEMM shapes to tune and a growing arena (dynamic sizes) run again with
    the GIL released; threads calling one function (each allocation may
    hand the GIL over) neither deadlock nor mix their results."""
    f = tgc.compile(lambda a, w: torch.relu(a @ w) * 2, dynamic=True)
    w = torch.randn(64, 64, device="cuda")
    f(torch.randn(4, 64, device="cuda"), w)
    before = f._native_calls()
    for rows in (8, 32, 256, 1024, 8, 4096):
        a = torch.randn(rows, 64, device="cuda")
        torch.testing.assert_close(f(a, w), torch.relu(a @ w) * 2, rtol=2e-3, atol=2e-3)
    assert f._native_calls() == before + 6
    inputs = [torch.randn(64 * (i + 1), 64, device="cuda") for i in range(4)]
    errors = []

    def work(a):
        try:
            for _ in range(30):
                torch.testing.assert_close(f(a, w), torch.relu(a @ w) * 2, rtol=2e-3,
                                           atol=2e-3)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(a,)) for a in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread is stuck"
    assert not errors


class Tagged(torch.Tensor):
    pass


class Unwrapped(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl


class Doubled(torch.Tensor):
    """A subclass whose __torch_function__ changes what `mul` computes."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs or {})
        if func in (torch.Tensor.mul, torch.Tensor.__mul__, torch.mul):
            with torch._C.DisableTorchFunction():
                out = (out * 2).as_subclass(cls)
        return out


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=cuda)])
def test_tensor_subclass_arguments_are_never_compiled(device):
    """Eager runs a subclass's __torch_function__ and returns the subclass:
    compiled code would do neither. A call with a subclass argument is
    refused with the reason (fallback=True: it runs eagerly), also after a
    plain call compiled a specialization the native path could serve."""
    f = tgc.compile(lambda a: a * 2 + 1)
    plain = torch.randn(16, device=device)
    for _ in range(2):
        f(plain)
    for cls in (Tagged, Doubled):
        a = plain.as_subclass(cls)
        with pytest.raises(tgc.Unsupported, match=f"tensor subclass argument \\({cls.__name__}\\)"):
            f(a)
    g = tgc.compile(lambda a: a * 2 + 1, fallback=True)
    for _ in range(2):
        g(plain)
    with pytest.warns(UserWarning, match="ran eagerly"):
        out = g(plain.as_subclass(Doubled))
    assert type(out) is Doubled
    torch.testing.assert_close(out.as_subclass(torch.Tensor), plain * 4 + 1)
    out = g(plain.as_subclass(Tagged))
    assert type(out) is Tagged
    torch.testing.assert_close(out.as_subclass(torch.Tensor), plain * 2 + 1)
    # Parameters, and subclasses with torch function disabled as theirs,
    # are plain tensors to eager ops and to compiled code.
    p = nn.Parameter(plain.clone(), requires_grad=False)
    torch.testing.assert_close(f(p), plain * 2 + 1)
    out = f(plain.as_subclass(Unwrapped))
    assert type(out) is torch.Tensor
    torch.testing.assert_close(out, plain * 2 + 1)
    assert tgc.explain(f).compiles == 1


def test_compiled_functions_called_inside_a_trace_are_traced_through():
    """A compiled submodule or function called by a compiled model is
    traced into the model's graph (as torch.compile inlines nested
    compiled code): one compile, of the outer function; the inner compiles
    when called alone."""
    torch.manual_seed(0)
    inner = tgc.compile(nn.Linear(8, 8))
    act = tgc.compile(lambda x: torch.tanh(x) * 2)

    class M(nn.Module):
        def forward(self, x):
            return act(inner(x)) + 1

    m = M()
    c = tgc.compile(m)
    x = torch.randn(3, 8)
    with torch.no_grad():
        for _ in range(3):
            torch.testing.assert_close(c(x), torch.tanh(inner.fn(x)) * 2 + 1)
        assert tgc.explain(c).compiles == 1
        assert tgc.explain(inner).compiles == 0 and tgc.explain(act).compiles == 0
        torch.testing.assert_close(act(x), torch.tanh(x) * 2)
        assert tgc.explain(act).compiles == 1
    # With gradients: traced through by the training path's trace too (a
    # compiled function without parameters; the module's own Linear).
    act2 = tgc.compile(lambda x: torch.tanh(x) * 2)

    class M2(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x):
            return act2(self.lin(x)) + 1

    m2 = M2()
    c2 = tgc.compile(m2)
    x.requires_grad_(True)
    y = c2(x)
    want = torch.tanh(m2.lin(x)) * 2 + 1
    torch.testing.assert_close(y, want)
    got = torch.autograd.grad(y.sum(), [x, m2.lin.weight])
    expected = torch.autograd.grad(want.sum(), [x, m2.lin.weight])
    for a, b in zip(got, expected):
        torch.testing.assert_close(a, b)
    assert tgc.explain(act2).compiles == 0


def test_a_captured_tensor_subclass_is_refused():
    """A module's buffer of a subclass type: eager's results are of that
    type, compiled code's would be plain; the trace refuses it."""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", torch.randn(16).as_subclass(Tagged))

        def forward(self, x):
            return self.b * x.sum()

    c = tgc.compile(M())
    with pytest.raises(tgc.Unsupported, match="tensor subclass \\(Tagged\\) from outside"):
        c(torch.randn(3))


@native
def test_training_graphs_are_served_natively():
    """The forward and backward graphs of a training call run natively on
    steady calls; the forward (an FX graph, whose interpreter returns
    torch.fx's immutable lists) returns a plain list, as the graph module
    does, which the native path builds without a Python finish step, as
    it builds the backward's (whose gradient of x, which needs none, is a
    None it returns as a constant)."""
    torch.manual_seed(0)
    m = MLP()
    c = tgc.compile(m)
    x = torch.randn(3, 8)
    for _ in range(4):
        c(x).sum().backward()
    spec = c._training.specs[0]
    assert spec.forward._native_calls() == 3  # the first call compiled
    assert spec.backward._native_calls() == 3
    # The forward's results are built in C, without the Python finish step
    # (an immutable list as the output tree needed it).
    assert _native_path._outputs(spec.forward.specs[0].trace) is not None
    assert _native_path._outputs(spec.backward.specs[0].trace) is not None
    want = [p.grad.clone() for p in m.parameters()]
    for p in m.parameters():
        p.grad = None
    m(x).sum().backward()
    for a, b in zip(want, (p.grad for p in m.parameters())):
        torch.testing.assert_close(a, 4 * b)
