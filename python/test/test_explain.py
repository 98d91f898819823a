"""What a model author reads: the model's names in guards, graphs and
recompile reasons; tgc.explain's honest counts (eager fallbacks, graph
breaks, phases, kernels, memory); TGC_LOGS categories that print what their
name says (issue 23)."""

import re
import warnings

import pytest
import torch

import tgc
from tgc import _compile


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.norm = torch.nn.LayerNorm(48)

    def forward(self, x):
        return torch.nn.functional.gelu(self.norm(self.qkv(x)))  # BLOCK_LINE


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.Sequential(Block(), torch.nn.Linear(48, 16))

    def forward(self, x, mask=None):
        y = self.blocks(x)
        return y * mask if mask is not None else y


def _line(marker: str) -> int:
    with open(__file__) as f:
        return next(i + 1 for i, l in enumerate(f) if l.rstrip().endswith(marker))


@pytest.fixture
def logs(capsys):
    """Sets TGC_LOGS for one test; returns a function reading stderr."""
    def read():
        return capsys.readouterr().err
    yield read
    _compile.set_logs("")


def test_graph_names_arguments_and_locates_ops_in_modules():
    c = tgc.compile(Net())
    with torch.no_grad():
        c(torch.randn(2, 16), mask=torch.ones(2, 16))
    graph = tgc.explain(c).graphs[0]
    header = graph.splitlines()[0]
    assert 'loc("x")' in header and 'loc("mask")' in header, header
    assert 'loc("self.blocks.0.qkv.weight")' in header, header
    assert 'loc("self.blocks.1.bias")' in header, header
    # The linear inside Block: its module path and type, Block.forward's line.
    line = _line("# BLOCK_LINE")
    linear = next(l for l in graph.splitlines() if "tgc.linear" in l)
    assert f'loc("self.blocks.0.qkv (Linear)"("{__file__}":{line}:0))' in linear, linear
    # The Linear of the Sequential: no user frame of its own, Net.forward's.
    second = [l for l in graph.splitlines() if "tgc.linear" in l][1]
    assert '"self.blocks.1 (Linear)"' in second, second


def test_guards_and_recompile_reasons_use_names_and_group_parameters():
    c = tgc.compile(Net(), dynamic=False)
    with torch.no_grad():
        c(torch.randn(2, 16))
        c(torch.randn(3, 16))
    e = tgc.explain(c)
    assert "x.size(0) == 2" in e.recompile_reasons[0], e.recompile_reasons
    assert "arg0" not in e.recompile_reasons[0]
    summary = e.specializations[0].guard_summary
    assert "rank(x) == 2  (compiled for a 2-d tensor at x)" in summary, summary
    # 6 parameters, each rank, dtype, device, contiguity and sizes: counted.
    counted = [g for g in summary if "parameters and buffers" in g]
    assert len(counted) == 1 and re.match(r"\+ \d+ guards on 6 parameters", counted[0]), summary
    assert not any("self.blocks.0.qkv.weight" in g for g in summary if not g.startswith("+"))
    # Every guard is still listed (and checked).
    assert any(g.startswith("rank(self.blocks.0.qkv.weight) == 2") for g in e.guards[0])
    # In the report the counted lines follow the guards on the inputs.
    text = str(e)
    assert text.index("guard: rank(x) == 2") < text.index("+ "), text


def _logged(spec, logs) -> str:
    """stderr of compiling Net once with TGC_LOGS=spec."""
    _compile.set_logs(spec)
    c = tgc.compile(Net())
    with torch.no_grad():
        c(torch.randn(2, 16))
    return logs()


def test_plus_guards_lists_every_guard(logs):
    err = _logged("+guards", logs)
    assert "rank(self.blocks.1.weight) == 2" in err, err
    assert "guards on 6 parameters" not in err


def test_global_and_closure_tensors_are_named():
    table = torch.randn(4)

    def f(x):
        return x + table + SCALE_T

    c = tgc.compile(f)
    with torch.no_grad():
        c(torch.randn(4))
    header = tgc.explain(c).graphs[0].splitlines()[0]
    assert 'loc("table")' in header and 'loc("SCALE_T")' in header, header


SCALE_T = torch.tensor(2.0)


def test_argument_names_of_nested_structures():
    from tgc._names import input_names

    def f(x, pair, *rest, opts=None):
        return x

    names = input_names(f, (torch.ones(1), (torch.ones(1), [torch.ones(1)]),
                            torch.ones(1)), {"opts": {"w": torch.ones(1)}})
    assert names == ["x", "pair[0]", "pair[1][0]", "rest[0]", "opts['w']"], names


def test_explain_reports_phases_kernels_and_memory(no_disk_cache):
    c = tgc.compile(Net())
    with torch.no_grad():
        c(torch.randn(2, 16))
        c(torch.randn(2, 16))
    e = tgc.explain(c)
    s = e.specializations[0]
    names = [n for n, _ in s.phases]
    for phase in ("trace", "parse", "frontend", "bufferize", "to LLVM", "LLVM JIT"):
        assert phase in names, names
    assert all(ms >= 0 for _, ms in s.phases)
    assert s.total_ms >= s.compile_ms * 0.9
    assert s.kernels >= 3 and s.arena_bytes and s.arena_bytes > 0
    assert s.hits == 1
    text = str(e)
    assert "1 call(s) served by the in-process dispatch cache" in text, text
    assert f"{s.kernels} kernel(s)" in text and "arena " in text and "LLVM JIT" in text


def test_explain_lists_every_eager_fallback():
    class Opaque:
        pass

    def f(x, o):
        return x + 1

    c = tgc.compile(f, fallback=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.no_grad():
            c(torch.randn(3), Opaque())
            c(torch.randn(3), Opaque())
    e = tgc.explain(c)
    assert e.fallbacks == 2 and len(e.fallback_reasons) == 1, e
    assert "an argument of type Opaque" in e.fallback_reasons[0]
    assert "2 call(s) run eagerly" in str(e)

    def g(x):
        return torch.fft.fft(x).real.nonzero() + 1

    c = tgc.compile(g, fallback=True, fullgraph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.no_grad():
            c(torch.randn(8))
            c(torch.randn(8))
    text = str(tgc.explain(c))
    assert "0 compile(s)" in text and "2 call(s) run eagerly" in text, text
    # Every unsupported call is listed, with its line.
    assert text.count("test_explain.py") >= 3, text


def test_output_code_is_the_kernels_and_guard_code_the_guard_function(logs):
    m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())
    _compile.set_logs("output_code")
    c = tgc.compile(m)
    with torch.no_grad():
        c(torch.randn(4, 8))
    out = logs()
    assert "output code of Sequential" in out
    assert "tgc_guard_" not in out, out[:2000]
    assert len(out.splitlines()) < 200, len(out.splitlines())

    _compile.set_logs("guard_code")
    c = tgc.compile(m)
    with torch.no_grad():
        c(torch.randn(4, 8))
    out = logs()
    assert "guard function of Sequential" in out and "llvm.func @tgc_guard_" in out
    assert "output code of" not in out


def test_compile_time_log(logs, no_disk_cache):
    out = _logged("compile_time", logs)
    assert re.search(r"Net: specialization 0 \(cpu\):.*compiled in [\d.]+ ms \(trace", out), out


def test_unknown_log_category_warns():
    with pytest.warns(UserWarning, match="unknown categories"):
        _compile.set_logs("guardz")
    _compile.set_logs("")


def test_graph_break_names_the_module_and_its_results():
    class Spectrum(torch.nn.Module):
        def forward(self, x):
            return torch.cumprod(x, 0) + 1

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.spectrum = Spectrum()

        def forward(self, x):
            return self.spectrum(x) * 2

    c = tgc.compile(Model())
    with torch.no_grad():
        c(torch.randn(8))
    e = tgc.explain(c)
    (b,) = e.graph_breaks
    assert b.where.endswith(" in self.spectrum (Spectrum)"), b
    # The later region's argument is the break's result, named so; its
    # guards are not counted as parameter guards.
    assert 'loc("cumprod result 0")' in e.graphs[0], e.graphs[0]


def test_a_large_guard_set_is_checked_from_a_table_with_the_same_reasons(logs):
    # 14 Linear layers: 28 parameters, each with rank, dtype, device,
    # contiguity and size guards, past tgc-lower-guards' table-min-guards
    # (64): those are records of a table that one loop checks, and a
    # failing one is still named.
    model = torch.nn.Sequential(*[torch.nn.Linear(8, 8) for _ in range(14)])
    _compile.set_logs("guard_code")
    c = tgc.compile(model, dynamic=False)
    x = torch.randn(2, 8)
    with torch.no_grad():
        torch.testing.assert_close(c(x), model(x))
        code = logs()
        assert "tgc_guard_.check_table" in code and ".table" in code, code
        _compile.set_logs("")
        y = torch.randn(3, 8)
        torch.testing.assert_close(c(y), model(y))
        # (the parameters' dtype changes too: the input's guard comes first)
        model.double()
        z = torch.randn(2, 8, dtype=torch.float64)
        torch.testing.assert_close(c(z), model(z))
    e = tgc.explain(c)
    assert len(e.recompile_reasons) == 2, e.recompile_reasons
    assert "input.size(0) == 2" in e.recompile_reasons[0], e.recompile_reasons
    assert "dtype(input) == f32" in e.recompile_reasons[1], e.recompile_reasons
