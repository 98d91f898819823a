"""Inputs that used to kill the process or misbehave (issue "No input crashes
TGC"): size-0 tensors, functions named like libm/libc symbols, sizes no
machine can allocate, concurrent first calls and cycling threads, and
argument checks of tgc.compile. Cases that crashed run in a subprocess, so
that a regression fails the test instead of killing pytest."""

import os
import subprocess
import sys
import textwrap
import threading

import pytest
import torch
import torch.nn.functional as F

import tgc
from conftest import assert_same

HERE = os.path.dirname(os.path.abspath(__file__))


def run_isolated(code: str) -> subprocess.CompletedProcess:
    """Runs `code` (which imports tgc) in a fresh interpreter."""
    prologue = f"import sys; sys.path.insert(0, {os.path.dirname(HERE)!r})\n"
    return subprocess.run(
        [sys.executable, "-c", prologue + textwrap.dedent(code)],
        capture_output=True, text=True, timeout=600,
    )


# --- PyTorch as it was after a trace ------------------------------------------


def test_eager_pytorch_is_unchanged_after_a_trace_in_a_subprocess():
    # The tracer patches torch.Tensor.__getitem__ / __setitem__; removing
    # the patches left CPython's sq_item slot filled, so every tensor became
    # a Python sequence: torch.tensor([t]) of a 0-d t then raised
    # "len() of a 0-d tensor" in eager code after any compile (tgc._slots).
    r = run_isolated("""
        import torch, tgc
        def eager_checks():
            t = torch.tensor(1.5)
            assert torch.tensor([t, t * 2]).tolist() == [1.5, 3.0]
            p = torch.nn.Parameter(torch.tensor(2.0))
            assert torch.tensor([p.detach(), p.detach()]).tolist() == [2.0, 2.0]
            x = torch.arange(4.0)
            x[1:3] = 0
            assert x[3].item() == 3.0 and x.tolist() == [0.0, 0.0, 0.0, 3.0]
        eager_checks()

        def f(x):
            y = x * 2
            y[0:2] = 1
            return y[1:] + y[0]
        x = torch.randn(5)
        assert torch.equal(tgc.compile(f)(x), f(x))
        eager_checks()

        def fails(x):
            y = x[1:]
            raise ValueError("inside the trace")
        try:
            tgc.compile(fails)(x)
        except ValueError:
            pass
        eager_checks()

        made = []

        def defines_a_subclass(x):  # a Tensor subclass made while the patch is on
            class Late(torch.Tensor):
                pass
            made.append(Late)
            return x[1:] * 2
        tgc.compile(defines_a_subclass)(x)
        late = torch.tensor(1.5).as_subclass(made[0])
        assert torch.tensor([late, late]).tolist() == [1.5, 1.5]
        print("ok", tgc._slots.supported())
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ok", "True"]


# --- size-0 dimensions --------------------------------------------------------


def test_sum_over_empty_dim_in_a_subprocess():
    # Used to SIGSEGV in tgc-form-kernels.
    r = run_isolated("""
        import torch, tgc
        print(tgc.compile(lambda a: a.sum(0))(torch.randn(0, 5)).tolist())
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[0.0, 0.0, 0.0, 0.0, 0.0]"


@pytest.mark.parametrize("dynamic", [False, True])
def test_empty_tensors_match_eager(dynamic):
    def f(a, w, b):
        return (
            a.sum(0),
            a.mean(0),
            a.var(0),
            torch.linalg.vector_norm(a, 2, dim=0),
            a.t() @ a,
            F.linear(a.t(), w, b),
            torch.softmax(a.t(), -1),
            F.layer_norm(a, (5,)),
            torch.exp(a) + 1,
            torch.cat([a, a], 0),
            F.pad(a, (0, 0, 1, 1), value=3.0),
            a[:, 1::2].tanh(),  # a slice beside the size-0 dim
        )

    a, w, b = torch.randn(0, 5), torch.randn(3, 0), torch.randn(3)
    compiled = tgc.compile(f, dynamic=dynamic)
    assert_same(compiled(a, w, b), f(a, w, b))


def test_any_all_over_empty_dims_match_eager():
    # all() over nothing is True and any() False (amin/amax have no identity).
    x = torch.zeros(0, 3, dtype=torch.int8)
    f = lambda a: (a.all(), a.any(), a.all(0), a.any(0, keepdim=True),  # noqa: E731
                   a.all(1), torch.ones(2, 0).all(1))
    assert_same(tgc.compile(f, fullgraph=True)(x), f(x))


def test_reduction_without_identity_over_empty_dim_raises_like_eager():
    with pytest.raises(IndexError, match="non-zero size"):
        tgc.compile(lambda a: a.amax(0))(torch.randn(0, 5))
    with pytest.raises((IndexError, RuntimeError), match="non-zero size"):
        tgc.compile(lambda a: a.argmax(0))(torch.randn(0, 5))


# --- names of libm / libc symbols ---------------------------------------------

LIBRARY_NAMES = ["exp", "log", "sin", "tanh", "cosf", "memcpy", "malloc", "free", "pow"]


def test_functions_named_like_library_symbols_in_a_subprocess():
    # `def exp` on f64 recursed into itself (SIGSEGV); tanh failed to verify;
    # malloc failed to link.
    r = run_isolated(f"""
        import torch, tgc
        x = torch.rand(6, dtype=torch.float64) + 0.5
        for name in {LIBRARY_NAMES!r}:
            src = "def " + name + "(a, b):\\n" \\
                  "    return torch.cat([torch.exp(a) * 2, torch.log(b), torch.tanh(a)])\\n"
            scope = {{"torch": torch}}
            exec(src, scope)
            fn = scope[name]
            for dtype in (torch.float64, torch.float32):
                got = tgc.compile(fn)(x.to(dtype), x.to(dtype))
                want = fn(x.to(dtype), x.to(dtype))
                assert torch.allclose(got, want), (name, dtype)
        assert torch.allclose(tgc.compile(torch.exp)(x), torch.exp(x))
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


# --- huge sizes ------------------------------------------------------------------


def test_result_too_large_to_allocate_is_an_error_in_a_subprocess():
    # 2^24 x 2^24 f32 intermediate (1 PiB): the process used to die.
    r = run_isolated("""
        import torch, tgc
        f = tgc.compile(lambda a, b: (a @ b).sum(), dynamic=True)
        print(float(f(torch.ones(8, 1), torch.ones(1, 8))))
        try:
            f(torch.ones(2**24, 1), torch.ones(1, 2**24))
        except tgc.TgcError as e:
            print("error:", e)
        print(float(f(torch.ones(8, 1), torch.ones(1, 8))))
    """)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "64.0"
    assert "cannot allocate 1125899906842688 bytes (1.0 PiB)" in lines[1], lines[1]
    assert "arena of intermediate values (out of memory)" in lines[1], lines[1]
    assert lines[2] == "64.0"  # the next call works


# --- threads --------------------------------------------------------------------


def _softmax2(x):
    return torch.softmax(x, -1) * 2


def _errors_of_threads(count, body):
    """Runs `body` in `count` threads released together; what they raised."""
    start = threading.Barrier(count)
    errors = []

    def thread_main():
        start.wait()
        try:
            body()
        except BaseException as e:  # noqa: BLE001 - reported by the caller
            errors.append(e)

    threads = [threading.Thread(target=thread_main) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_concurrent_first_calls_compile_once():
    compiled = tgc.compile(_softmax2)
    x = torch.randn(4, 16)

    def first_call():
        assert_same(compiled(x), _softmax2(x))

    errors = _errors_of_threads(12, first_call)
    assert not errors, errors
    assert tgc.explain(compiled).compiles == 1


def test_threads_cycling_through_specializations_never_recompile():
    compiled = tgc.compile(_softmax2, dynamic=False)
    shapes = [torch.randn(3, 8), torch.randn(5, 8), torch.randn(7, 8)]
    for x in shapes:
        compiled(x)

    def cycle():
        for k in range(150):
            x = shapes[k % 3]
            assert_same(compiled(x), _softmax2(x))

    errors = _errors_of_threads(6, cycle)
    assert not errors, errors[:2]
    e = tgc.explain(compiled)
    assert e.compiles == 3 and e.recompile_reasons[2:] == [], e.recompile_reasons


# --- argument checks --------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(recompile_limit="x"), "recompile_limit must be an int >= 0"),
        (dict(recompile_limit=-1), "recompile_limit must be an int >= 0"),
        (dict(recompile_limit=True), "recompile_limit must be an int >= 0"),
        (dict(mode="fast"), "unknown mode 'fast'"),
        (dict(dynamic="yes"), "dynamic must be None, True or False"),
        (dict(options=["fuse=0"]), "options must be a string"),
        (dict(device="tpu"), "device must be None, 'cpu' or 'cuda'"),
    ],
)
def test_bad_compile_arguments_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tgc.compile(lambda x: x + 1, **kwargs)


def test_max_autotune_modes_are_accepted_and_compute_the_same():
    x = torch.randn(4, 4)
    for mode in ("max-autotune", "max-autotune-no-cudagraphs"):
        assert_same(tgc.compile(lambda a: a * 2 + 1, mode=mode)(x), x * 2 + 1)


@pytest.mark.skipif(not hasattr(getattr(torch, "compiler", None), "_is_compiling_flag"),
                    reason="torch.compiler.is_compiling needs PyTorch 2.x")
def test_is_compiling_during_a_trace():
    """Libraries leave their data-dependent checks out when a graph compiler
    traces (Hugging Face's masks: `if is_tracing(...) or padding_mask.all()`):
    torch.compiler.is_compiling() answers True inside tgc.compile's trace, as
    in torch.export's non-strict trace, and False again after it."""
    seen = []

    def f(x, mask):
        seen.append(torch.compiler.is_compiling())
        if not torch.compiler.is_compiling() and mask.all():  # data-dependent
            return x * 2
        return torch.where(mask, x * 2, x)

    g = tgc.compile(f, fallback=False)
    x, mask = torch.randn(6), torch.tensor([True, False, True, True, False, True])
    assert_same(g(x, mask), f(x, mask))
    assert seen[0] is True and seen[-1] is False
    assert not torch.compiler.is_compiling()


@torch.jit.script
def _scripted_double(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def test_torchscript_calls_are_not_constants():
    """TorchScript runs its operators where the tracer does not see them:
    the result of a scripted function was taken for a tensor from outside
    the function, the first call's value returned for every call (HF
    DeBERTa's helpers). It is traced through where PyTorch keeps the Python
    function (2.x) and a graph break otherwise; a scripted module too."""
    def f(x):
        return _scripted_double(x) + 1

    lin = torch.nn.Linear(4, 3)
    scripted = torch.jit.script(lin)

    def g(x):
        return scripted(x).relu()

    for fn in (f, g):
        c = tgc.compile(fn)
        for _ in range(3):
            x = torch.randn(2, 4)
            with torch.no_grad():
                assert_same(c(x), fn(x))
        breaks = tgc.explain(c).graph_breaks
        assert all("TorchScript" in b.reason for b in breaks), breaks
    with torch.no_grad():
        lin.weight.mul_(2)  # the scripted module shares the Linear's tensors
        x = torch.randn(2, 4)
        assert_same(c(x), g(x))
