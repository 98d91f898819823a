"""tgc.compile's dispatch, guards, recompiles, stances, logs and errors."""

import subprocess
import sys
import warnings

import pytest
import torch

import tgc
from conftest import assert_same


def reads_size(x):
    n = x.shape[0]
    return x.sum(0).pow(n)


def test_size_read_recompiles_and_says_where():
    f = tgc.compile(reads_size, dynamic=True)
    for n in (4, 5):
        x = torch.randn(n, 3)
        assert_same(f(x), reads_size(x))
    e = tgc.explain(f)
    assert e.compiles == 2
    assert len(e.recompile_reasons) == 1
    reason = e.recompile_reasons[0]
    assert "x.size(0) == 4" in reason and "test_api.py" in reason, reason
    # The size stays symbolic until it is used as a number (here, as the
    # exponent of pow; x * n would keep it symbolic): that use is the
    # reason, with its line.
    assert any("size passed to pow at" in g and "test_api.py" in g for g in e.guards[0]), \
        e.guards[0]
    assert "specialized (size passed to pow at" in reason, reason


def test_explain_fields():
    f = tgc.compile(lambda x: torch.relu(x) + 1, dynamic=True)
    for n in (3, 9):
        f(torch.randn(n, 4))
    e = tgc.explain(f)
    assert e.compiles == 1 and e.recompile_reasons == []
    assert "tgc.relu" in e.graphs[0]
    assert any(g.startswith("s0 >= 2") for g in e.guards[0]), e.guards[0]
    assert e.hits == [1]
    assert "1 compile(s)" in str(e)


def test_automatic_dynamic():
    f = tgc.compile(lambda x: x * 2)
    for n in (3, 4, 5, 6):
        x = torch.randn(n)
        assert_same(f(x), x * 2)
    e = tgc.explain(f)
    assert e.compiles == 2  # static 3, then dynamic
    assert "tensor<3xf32>" in e.graphs[0] and "tensor<?xf32>" in e.graphs[1]


def test_static_recompiles_per_size():
    f = tgc.compile(lambda x: x + 1, dynamic=False)
    for n in (3, 4, 5):
        f(torch.randn(n))
    assert tgc.explain(f).compiles == 3


def test_dtype_change_recompiles():
    f = tgc.compile(lambda x: x + 1, dynamic=True)
    f(torch.randn(4))
    y = f(torch.arange(4))
    assert y.dtype == torch.int64 and torch.equal(y, torch.arange(1, 5))
    e = tgc.explain(f)
    assert e.compiles == 2 and "dtype(x) == f32" in e.recompile_reasons[0]


def test_stances():
    f = tgc.compile(lambda x: x + 1, dynamic=False)
    f(torch.randn(3))
    tgc.set_stance("fail_on_recompile")
    with pytest.raises(tgc.RecompileError, match="recompiling"):
        f(torch.randn(4))
    f(torch.randn(3))  # a hit is fine
    tgc.set_stance("eager_on_recompile")
    assert_same(f(torch.ones(5)), torch.full((5,), 2.0))
    assert tgc.explain(f).compiles == 1 and tgc.explain(f).fallbacks == 1
    tgc.set_stance("default")
    f(torch.randn(5))
    assert tgc.explain(f).compiles == 2
    with pytest.raises(ValueError):
        tgc.set_stance("nonsense")


def test_recompile_limit():
    f = tgc.compile(lambda x: x + 1, dynamic=False, recompile_limit=2)
    for n in (1 + 1, 3, 4):
        f(torch.randn(n))
    with pytest.raises(tgc.RecompileError, match="recompile limit"):
        f(torch.randn(5))
    g = tgc.compile(lambda x: x + 1, dynamic=False, recompile_limit=0, fallback=True)
    g(torch.randn(2))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert_same(g(torch.ones(3)), torch.full((3,), 2.0))
    assert any("recompile limit" in str(x.message) for x in w)


def uses_unsupported(x):
    y = torch.cumprod(x, 0)
    z = torch.logcumsumexp(y, 0)
    return z + 1


def test_unsupported_lists_every_op_with_location():
    f = tgc.compile(uses_unsupported, fullgraph=True)
    with pytest.raises(tgc.Unsupported) as info:
        f(torch.randn(4))
    text = str(info.value)
    assert "cumprod" in text and "logcumsumexp" in text and "test_api.py" in text, text
    assert "2 unsupported" in text


def test_fallback_runs_eagerly_with_a_warning():
    f = tgc.compile(uses_unsupported, fullgraph=True, fallback=True)
    x = torch.randn(4)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert_same(f(x), uses_unsupported(x))
    assert any("runs eagerly" in str(m.message) for m in w)


def test_data_dependent_control_flow_is_reported():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(tgc.Unsupported, match="data-dependent"):
        tgc.compile(f)(torch.randn(4))


def test_wrong_dtype_out_buffer_raises():
    def f(x, out):
        torch.exp(x, out=out)

    with pytest.raises(RuntimeError):
        tgc.compile(f)(torch.randn(4), torch.empty(4, dtype=torch.int64))


def test_mismatched_out_buffer_raises():
    def f(x, out):
        torch.exp(x, out=out)

    with pytest.raises(tgc.Unsupported, match="out= tensor of a different shape"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tgc.compile(f)(torch.randn(4), torch.empty(3))


def test_non_contiguous_inputs():
    x = torch.randn(6, 4).t()
    f = tgc.compile(lambda x: x * 2)
    assert_same(f(x), x * 2)


def test_kwargs_and_structures():
    def f(x, scale=1.0, pair=None):
        a, b = pair
        return {"y": x * scale + a, "z": (b,)}

    g = tgc.compile(f)
    x, a, b = torch.randn(3), torch.randn(3), torch.randn(3)
    out = g(x, scale=2.0, pair=(a, b))
    assert_same(out["y"], x * 2.0 + a)
    assert out["z"][0] is b


def test_logs(tmp_path):
    script = tmp_path / "logs.py"
    script.write_text(
        "import sys; sys.path.insert(0, %r)\n"
        "import torch, tgc\n"
        "f = tgc.compile(lambda x: x + 1, dynamic=False)\n"
        "f(torch.randn(3)); f(torch.randn(4))\n" % (str(__import__('os').path.dirname(tgc.__path__[0])),)
    )
    env = dict(__import__("os").environ, TGC_LOGS="recompiles,guards,graph,output_code")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    err = r.stderr
    assert "[tgc] compiling <lambda> (first call)" in err.replace("_lambda_", "<lambda>") or "compiling _lambda_" in err
    assert "[tgc] recompiling" in err
    assert "[tgc] guards of" in err and "[tgc] graph of" in err
    assert "scf." in err or "omp." in err  # output code: the loops


def test_data_check_fails_the_call_not_the_process():
    # An index out of range is only known once the data is there: the call
    # fails with the op's message and location, and the next call works.
    # (The first call traces, where PyTorch itself would raise.)
    f = tgc.compile(lambda x, i: torch.gather(x, 1, i), fallback=False)
    x = torch.randn(4, 8)
    i = torch.tensor([[1], [2], [3], [0]])
    assert torch.equal(f(x, i), torch.gather(x, 1, i))
    with pytest.raises(tgc.TgcError, match="tgc.gather: index out of range at .*results are not valid"):
        f(x, torch.tensor([[1], [20], [3], [0]]))
    assert torch.equal(f(x, i), torch.gather(x, 1, i))
    assert tgc.explain(f).compiles == 1


# --- TGC_CHECK=reference ------------------------------------------------------


def test_check_reference_catches_a_wrong_result(tmp_path, monkeypatch):
    """The accuracy check raises on a wrong result (here made wrong after the
    compiled run) and leaves a reproducer that tgc-run checks on its own."""
    import os
    import shutil
    import subprocess

    monkeypatch.setenv("TGC_CHECK_DIR", str(tmp_path))
    f = tgc.compile(lambda x, y: (x * y + 1.0).relu().sum(-1))
    x, y = torch.randn(3, 5), torch.randn(3, 5)
    tgc.set_check("reference")
    try:
        assert torch.allclose(f(x, y), (x * y + 1.0).relu().sum(-1))  # checked, correct
        spec = f.specs[0]
        real_run = spec.compiled.run
        monkeypatch.setattr(spec.compiled, "run",
                            lambda call, dev: [r + 1e-2 for r in real_run(call, dev)])
        with pytest.raises(tgc.AccuracyError, match=r"result 0 differs .* reproducer in"):
            f(x, y)
    finally:
        tgc.set_check("")
    f(x, y)  # unchecked again
    (folder,) = list(tmp_path.iterdir())
    assert sorted(p.name for p in folder.iterdir()) == ["arg0.npy", "arg1.npy", "graph.mlir", "repro.sh"]
    tgc_run = shutil.which("tgc-run") or os.path.join(
        os.path.dirname(__file__), "..", "..", "build", "bin", "tgc-run")
    if not os.path.exists(tgc_run):
        pytest.skip("no tgc-run to run the reproducer")
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(tgc_run)) + os.pathsep + os.environ["PATH"])
    out = subprocess.run(["sh", str(folder / "repro.sh")], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_check_mode_validation():
    with pytest.raises(ValueError):
        tgc.set_check("sometimes")
    assert tgc.get_check() == ""


def test_cpu_vector_width_option():
    """Each vector width LLVM may be asked to prefer (libmvec's 4-, 8- and
    16-lane functions where the host has them) gives eager's results on a
    chain of transcendental functions, and another width is an error that
    says which ones are."""
    import torch.nn.functional as F
    from tgc import _capi

    def f(x):
        return F.gelu(torch.softmax(x, -1) * 40 - 1, approximate="tanh") + torch.erf(x).exp()

    x = torch.randn(33, 1000)
    x[0, :4] = torch.tensor([float("inf"), float("-inf"), float("nan"), 1e30])
    for options in ("", "vector-width=128", "vector-width=256", "vector-width=512"):
        got = tgc.compile(f, fullgraph=True, options=options)(x)
        torch.testing.assert_close(got, f(x), rtol=1e-5, atol=1e-6, equal_nan=True)
    with pytest.raises(_capi.TgcError, match="vector-width=300: expected 0 "
                       r"\(the host's widest\), 128, 256 or 512"):
        tgc.compile(f, fullgraph=True, options="vector-width=300")(x)


def test_cpu_exact_division_option():
    """On the CPU a softmax's row is multiplied by one reciprocal of its
    sum, as eager's CPU kernel does (within 1.5 ulp of the quotient);
    exact-division=1 divides. Other divisions by a row's value divide
    either way. Both agree with eager."""
    def f(x):
        return torch.softmax(x, -1) + x / x.sum(-1, keepdim=True) + x / 3

    x = torch.randn(17, 300).abs() + 0.1
    fast = tgc.compile(f, fullgraph=True)(x)
    exact = tgc.compile(f, fullgraph=True, options="exact-division=1")(x)
    torch.testing.assert_close(fast, f(x), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(exact, f(x), rtol=1e-5, atol=1e-6)
    # Only the rounding of the softmax's products differs: 2 ulp, in
    # some of 5100 elements (the option reaches the compile).
    torch.testing.assert_close(fast, exact, rtol=2.4e-7, atol=0)
    assert not torch.equal(fast, exact)


def test_gpu_exact_division_option():
    """`exact-division=1` reaches the GPU compiler through the C API (PTX
    only: no GPU needed): the softmax's divisions by its row sum stay IEEE
    divisions instead of one reciprocal and multiplications."""
    from tgc import _capi

    text = """func.func @sm(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %s = tgc.softmax %x dim = 1 : tensor<8x1024xf32>
  return %s : tensor<8x1024xf32>
}"""

    def divisions(extra):
        c = _capi.Compiled(text, "sm", "device=cuda ptx-only=1 keep-code=1 " + extra)
        return c.code("ptx").count("div.rn.f32")

    assert divisions("") == 0
    assert divisions("exact-division=1") == 8
    with pytest.raises(_capi.TgcError, match="exact-division=2: expected 0 or 1"):
        _capi.Compiled(text, "sm", "device=cuda ptx-only=1 exact-division=2")


def test_gpu_kernel_shape_options():
    """The GPU kernel shape options reach the compiler through the C API
    (PTX only), and bad values are errors that say why."""
    from tgc import _capi

    text = """func.func @f(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %y = tgc.exp %x : tensor<4096xf32>
  return %y : tensor<4096xf32>
}"""

    def block_size(extra):
        """The x block size of the plan's one launch."""
        c = _capi.Compiled(text, "f", "device=cuda ptx-only=1 keep-code=1 " + extra)
        lines = c.code("plan").splitlines()
        exprs = {l.split()[1]: l.split()[2:] for l in lines if l.startswith("expr ")}
        launch = next(l.split() for l in lines if l.startswith("launch "))
        kind, value = exprs[launch[launch.index("block") + 1][1:]]
        assert kind == "const"
        return int(value)

    assert block_size("") == 256
    assert block_size("block-size=128") == 128
    with pytest.raises(_capi.TgcError, match="block-size must be a multiple of 32"):
        block_size("block-size=100")
    with pytest.raises(_capi.TgcError, match="max-blocks=0: expected a positive integer"):
        block_size("max-blocks=0")
    with pytest.raises(_capi.TgcError, match="row-registers=2: expected 0 or 1"):
        block_size("row-registers=2")


def test_non_tensor_arguments_are_keyed_by_type_and_bits():
    """Specializations are keyed by their non-tensor arguments, compared
    with ==: 0.0 and -0.0, dict keys 1, 1.0 and True, and two enums of one
    name shared a key (a stale answer), and NaN never matched its own key
    (every call recompiled). Found by a helper's sweep."""
    import enum

    f = lambda x, a: 1.0 / (x * a)  # noqa: E731
    c = tgc.compile(f)
    x = torch.ones(2)
    c(x, 0.0)
    assert torch.equal(c(x, -0.0), f(x, -0.0))

    def by_key(d):
        return [v * k for k, v in d.items()]

    c = tgc.compile(by_key)
    i = torch.arange(3)
    for key in (1, 1.0, True):
        assert c({key: i})[0].dtype == by_key({key: i})[0].dtype

    class Mode(enum.IntEnum):
        A = 1
    first = Mode

    class Mode(enum.IntEnum):  # noqa: F811 - another class of the same name
        A = 1
    second = Mode

    c = tgc.compile(lambda x, m: x * (2 if type(m) is first else 3))
    c(torch.ones(1), first.A)
    assert c(torch.ones(1), second.A).item() == 3.0
    c = tgc.compile(lambda x, v: x + 1)
    for _ in range(10):
        c(torch.ones(2), float("nan"))
    assert tgc.explain(c).compiles == 1


def test_arguments_rebuilt_as_the_caller_made_them():
    """torch.Size and other tuple subclasses arrived as lists, a defaultdict
    failed to rebuild, and a dataclass was built again through __init__: a
    field with init=False went back to its default and __post_init__ ran a
    second time (wrong answers on the first call)."""
    import collections
    import dataclasses

    assert tgc.compile(lambda x, s: x.reshape(s + (1,)))(
        torch.ones(2, 3), torch.Size([3, 2])).shape == (3, 2, 1)
    d = collections.defaultdict(int, a=torch.ones(2))
    assert torch.equal(tgc.compile(lambda d: d["a"] * 2)(d), torch.ones(2) * 2)

    @dataclasses.dataclass
    class Cfg:
        x: torch.Tensor
        scale: float = dataclasses.field(init=False, default=1.0)

    cfg = Cfg(torch.ones(2))
    cfg.scale = 5.0
    assert tgc.compile(lambda c: c.x * c.scale)(cfg).tolist() == [5.0, 5.0]

    @dataclasses.dataclass
    class Counted:
        x: torch.Tensor
        n: int

        def __post_init__(self):
            self.n += 1

    p = Counted(torch.ones(2), 1)
    assert tgc.compile(lambda p: p.x * p.n)(p).tolist() == [2.0, 2.0]


def test_module_attributes_do_not_replace_the_compiled_functions():
    """tgc.compile(module) copied the module's __dict__ onto the compiled
    function (functools.update_wrapper): an attribute named `fn` replaced
    the function that runs (a wrong answer without gradients), and
    EmbeddingBag's `mode` the compile mode (found by a helper's sweep)."""
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)
            self.fn = torch.nn.functional.gelu

        def forward(self, x):
            return self.fn(self.lin(x))

    m = Block()
    x = torch.randn(2, 4)
    y = tgc.compile(m)(x)
    torch.testing.assert_close(y, m(x))
    assert y.requires_grad
    bag = torch.nn.EmbeddingBag(10, 3, mode="sum")
    tgc.compile(bag)(torch.tensor([[1, 2]])).sum().backward()
    assert bag.weight.grad is not None

    def double(x):
        return x * 2

    double.mode = "not a mode"
    c = tgc.compile(double)
    assert c.__name__ == "double" and c.__doc__ == double.__doc__
    assert_same(c(torch.ones(2)), torch.ones(2) * 2)


def test_dataclass_arguments_with_slots_or_other_attributes():
    """A slots dataclass over a plain base has an empty __dict__ (its fields
    were left out of the key), and one whose __post_init__ stores a lock
    was refused: both compile, keyed by their fields (found by the review
    of the argument-key fix)."""
    import dataclasses
    import sys
    import threading

    class Base:
        pass

    if sys.version_info >= (3, 10):
        @dataclasses.dataclass(slots=True)
        class Slotted(Base):
            scale: float

        c = tgc.compile(lambda x, s: x * s.scale)
        for s in (2.0, 3.0):
            assert_same(c(torch.ones(2), Slotted(s)), torch.ones(2) * s)

    @dataclasses.dataclass
    class Locked:
        x: torch.Tensor
        k: float = dataclasses.field(init=False, default=1.0)

        def __post_init__(self):
            self.lock = threading.Lock()

    obj = Locked(torch.ones(2))
    obj.k = 4.0
    assert_same(tgc.compile(lambda o: o.x * o.k)(obj), torch.ones(2) * 4)


def test_the_heap_is_frozen_only_while_a_trace_runs(monkeypatch):
    # (tgc._trace_loop._heap_frozen: the collector's full passes over the
    # process's objects cost a large model's trace half its time)
    import gc

    gc.unfreeze()  # (some Python builds start with objects frozen)
    seen = []

    def f(x):
        seen.append(gc.get_freeze_count())
        return x * 2

    x = torch.randn(4)
    want = f(x)
    seen.clear()
    assert_same(tgc.compile(f)(x), want)
    assert seen[0] > 0 and gc.get_freeze_count() == 0

    def bad(x):
        seen.append(gc.get_freeze_count())
        raise ValueError("the model's own error")

    with pytest.raises(ValueError, match="own error"):
        tgc.compile(bad)(x)
    assert seen[-1] > 0 and gc.get_freeze_count() == 0

    from tgc import _trace_loop

    assert _trace_loop._trace_depth == [0]
    # A program that froze its heap itself (more than _OWN_FREEZE_LIMIT
    # objects: this test process's) is left as it is...
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        assert before > _trace_loop._OWN_FREEZE_LIMIT
        seen.clear()
        assert_same(tgc.compile(f)(x + 1), want + 2)
        assert seen == [before] and gc.get_freeze_count() == before
        # ...and a few frozen objects are unfrozen with the rest (Python
        # unfreezes all or nothing).
        monkeypatch.setattr(_trace_loop, "_OWN_FREEZE_LIMIT", before)
        seen.clear()
        assert_same(tgc.compile(f)(x + 3), want + 6)
        assert seen[0] >= before and gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
    # Nothing is frozen with the collector off.
    gc.disable()
    try:
        seen.clear()
        assert_same(tgc.compile(f)(x - 1), want - 2)
        assert seen == [0]
    finally:
        gc.enable()
