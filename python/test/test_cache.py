"""The on-disk compile cache (issue 22, docs/compile-cache.md): a second
process loads what the first compiled; corrupted, truncated, mismatched and
old-format entries are rejected with one warning and compiled again;
concurrent writers leave one valid entry; the size bound evicts; bundles
move entries between caches."""

import glob
import os
import re
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch

import tgc
from tgc import _cache, _capi


@pytest.fixture(autouse=True)
def _cache_on(monkeypatch):
    """These tests are about the cache: on whatever the caller's TGC_CACHE
    says (a device script turns it off for the other tests)."""
    monkeypatch.delenv("TGC_CACHE", raising=False)


PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# A child process: compiles a small model (or the function `which` names),
# checks it against eager and prints the compile-cache statuses.
CHILD = textwrap.dedent("""
    import sys, warnings, torch, tgc
    torch.manual_seed(0)
    which = sys.argv[1]
    if which == "mlp":
        m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
        f = tgc.compile(m)
        x = torch.randn(5, 16)
        with torch.no_grad():
            got, want = f(x), m(x)
    else:
        f = tgc.compile(lambda x: torch.softmax(x * 2, -1))
        x = torch.randn(3, 7)
        got, want = f(x), torch.softmax(x * 2, -1)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    e = tgc.explain(f)
    print("STATUS", ",".join(c for s in e.specializations for c in s.disk_cache))
    print("HEADLINE", e.specializations[0].headline())
    if len(sys.argv) > 2:
        print("SAVED", tgc.save_cache(sys.argv[2]))
""")


def run_child(cache_dir, which="mlp", *extra, env=None):
    environment = dict(os.environ, TGC_CACHE_DIR=str(cache_dir),
                       PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    environment.pop("TGC_CACHE", None)
    environment.update(env or {})
    r = subprocess.run([sys.executable, "-W", "always", "-c", CHILD, which, *extra],
                       capture_output=True, text=True, env=environment, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    status = next(line.split(" ", 1)[1] for line in r.stdout.splitlines()
                  if line.startswith("STATUS"))
    return status, r


def cpu_options():
    """The cache's options, and the bundled OpenMP runtime where the package
    carries one (the relocatable bundle: no LLVM installed)."""
    libs = _capi.bundled_shared_libs()
    return _cache.compile_options() + (" shared-libs=" + ":".join(libs) if libs else "")


def entries(cache_dir):
    return sorted(glob.glob(os.path.join(str(cache_dir), "*", "*.tgcc")))


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    status, _ = run_child(tmp_path)
    assert status == "miss"
    assert len(entries(tmp_path)) == 1
    status, r = run_child(tmp_path)
    assert status == "hit"
    assert "loaded from the disk cache" in r.stdout
    # The entry files are all there is: no temporary files left.
    leftovers = [p for p in glob.glob(os.path.join(str(tmp_path), "*", "*"))
                 if not p.endswith(".tgcc")]
    assert not leftovers, leftovers


@pytest.mark.parametrize("damage", ["flip", "truncate", "magic", "version", "other_key"])
def test_damaged_entries_are_rejected_with_a_warning_and_recompiled(tmp_path, damage):
    run_child(tmp_path)
    (path,) = entries(tmp_path)
    data = bytearray(open(path, "rb").read())
    if damage == "flip":
        data[len(data) // 2] ^= 0x10
    elif damage == "truncate":
        data = data[: len(data) // 3]
    elif damage == "magic":
        data[0:8] = b"NOTTGC!!"
    elif damage == "version":
        data[8] = 99
    if damage == "other_key":
        # A whole, valid entry of another function under this key's name.
        other = tmp_path / "other"
        run_child(other, "softmax")
        (donor,) = entries(other)
        data = bytearray(open(donor, "rb").read())
    open(path, "wb").write(bytes(data))
    status, r = run_child(tmp_path)
    assert status == "miss", r.stdout
    reason = {"flip": "checksum mismatch", "truncate": "truncated",
              "magic": "bad magic", "version": "cache format version 99",
              "other_key": "another key"}[damage]
    lines = [line for line in r.stderr.splitlines() if "UserWarning: tgc: compile cache" in line]
    assert len(lines) == 1 and reason in lines[0] and "compiling again" in lines[0], r.stderr
    # Compiled again and stored whole: the next process loads it.
    status, _ = run_child(tmp_path)
    assert status == "hit"


def test_concurrent_writers_leave_one_valid_entry(tmp_path):
    environment = dict(os.environ, TGC_CACHE_DIR=str(tmp_path),
                       PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    environment.pop("TGC_CACHE", None)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, "mlp"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=environment)
             for _ in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        assert "STATUS miss" in out or "STATUS hit" in out, out
    assert len(entries(tmp_path)) == 1
    assert not [p for p in glob.glob(os.path.join(str(tmp_path), "*", "*"))
                if not p.endswith(".tgcc")]
    status, _ = run_child(tmp_path)
    assert status == "hit"


def test_keys_follow_options_and_code(tmp_path, monkeypatch):
    monkeypatch.setenv("TGC_CACHE_DIR", str(tmp_path))
    text = tgc.trace_to_mlir(lambda x: torch.tanh(x) * 3, torch.randn(4, 8))
    opts = cpu_options()
    a = _capi.Compiled(text, "", opts)
    b = _capi.Compiled(text, "", opts)
    c = _capi.Compiled(text, "", opts + " fuse=0")  # other code
    d = _capi.Compiled(text.replace("8xf32", "9xf32"), "", opts)  # other graph
    assert (a.cache_status, b.cache_status, c.cache_status) == ("miss", "hit", "miss")
    assert d.cache_status == "miss" and len({a.cache_key, c.cache_key, d.cache_key}) == 3
    assert a.cache_key == b.cache_key
    # A runtime-only option (CUDA graphs) does not change the key.
    e = _capi.Compiled(text, "", opts + " cuda-graphs=1")
    assert e.cache_status == "hit"


def test_gpu_artifacts_are_cached_without_a_gpu(tmp_path, monkeypatch):
    monkeypatch.setenv("TGC_CACHE_DIR", str(tmp_path))
    text = tgc.trace_to_mlir(lambda x, w: torch.softmax(x @ w, -1), torch.randn(8, 16),
                             torch.randn(16, 32))
    opts = "device=cuda keep-code=1 " + _cache.compile_options()
    a = _capi.Compiled(text, "", opts)
    b = _capi.Compiled(text, "", opts)
    assert (a.cache_status, b.cache_status) == ("miss", "hit")
    assert b.code("plan") == a.code("plan") and b.steps() == a.steps()
    assert b.guards == a.guards and b.kernels == a.kernels
    assert [n for n, _ in b.phases()] == ["disk cache"]


def test_the_size_bound_evicts_least_recently_used(tmp_path, monkeypatch):
    monkeypatch.setenv("TGC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TGC_CACHE_MAX_MB", "1")
    opts = cpu_options()
    text_a = tgc.trace_to_mlir(lambda x: torch.softmax(x, -1) * 2, torch.randn(3, 5))
    a = _capi.Compiled(text_a, "", opts)
    # An older, large entry (any bytes: eviction goes by size and time).
    big = tmp_path / "ff" / ("f" * 64 + ".tgcc")
    big.parent.mkdir()
    # (The bound is reached once B, over 1000 bytes, comes in.)
    big.write_bytes(b"x" * ((1 << 20) - os.path.getsize(a.cache_path) - 1000))
    os.utime(big, (1_000_000_000, 1_000_000_000))
    os.utime(a.cache_path, (900_000_000, 900_000_000))  # older still
    assert _capi.Compiled(text_a, "", opts).cache_status == "hit"  # A used again
    text_b = tgc.trace_to_mlir(lambda x: torch.relu(x) * 2, torch.randn(3, 5))
    b = _capi.Compiled(text_b, "", opts)
    assert b.cache_status == "miss"
    # Over 1 MiB: the least recently used entry went, the one just used stayed.
    assert not big.exists()
    assert os.path.exists(a.cache_path) and os.path.exists(b.cache_path)
    assert sum(os.path.getsize(p) for p in entries(tmp_path)) <= 1 << 20


def test_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("TGC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TGC_CACHE", "0")
    f = tgc.compile(lambda x: x * 5 - 1)
    f(torch.randn(3))
    assert tgc.explain(f).specializations[0].disk_cache == ["off"]
    assert not entries(tmp_path)


def test_bundles_carry_entries_to_another_cache(tmp_path):
    bundle = tmp_path / "model.tgcbundle"
    status, r = run_child(tmp_path / "a", "mlp", str(bundle))
    assert status == "miss" and "SAVED 1" in r.stdout
    # Another machine's empty cache, filled from the bundle.
    env = dict(os.environ, TGC_CACHE_DIR=str(tmp_path / "b"))
    code = f"import tgc; print(tgc.load_cache({str(bundle)!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(env, PYTHONPATH=PYTHON_DIR), timeout=120)
    assert out.stdout.strip() == "1", out.stderr
    status, _ = run_child(tmp_path / "b")
    assert status == "hit"
    # A damaged bundle is refused whole.
    data = bytearray(bundle.read_bytes())
    data[40] ^= 1
    bad = tmp_path / "bad.tgcbundle"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="corrupted"):
        tgc.load_cache(str(bad))
    bad.write_bytes(b"something else entirely, not a bundle at all......")
    with pytest.raises(ValueError, match="not a TGC cache bundle"):
        tgc.load_cache(str(bad))


def test_cache_log_and_explain(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TGC_CACHE_DIR", str(tmp_path))
    tgc.set_logs("cache")
    try:
        for _ in range(2):
            f = tgc.compile(lambda x: torch.relu(x) + 7)
            f(torch.randn(4))
    finally:
        tgc.set_logs("")
    err = capsys.readouterr().err
    assert "compile cache miss (compiled in" in err and "compile cache hit (loaded in" in err, err
    assert "disk cache: 1 hit(s), 0 miss(es)" in str(tgc.explain(f))


CUDA_CHILD = textwrap.dedent("""
    import json, torch, tgc
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(),
                            torch.nn.Linear(512, 256)).cuda()
    f = tgc.compile(m)
    x = torch.randn(64, 256, device="cuda")
    with torch.no_grad():
        got, want = f(x), m(x)
    torch.testing.assert_close(got, want, rtol=2e-3, atol=2e-3)
    spec = f.specs[0]
    # Convolutions (cuDNN engines, timed per shape).
    conv = torch.nn.Sequential(torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.Conv2d(32, 8, 1)).cuda()
    g = tgc.compile(conv)
    y = torch.randn(8, 16, 32, 32, device="cuda")
    with torch.no_grad():
        torch.testing.assert_close(g(y), conv(y), rtol=2e-3, atol=2e-3)
    print("RESULT " + json.dumps({"status": spec.compiled.cache_status,
                                  "stats": spec.compiled.gpu_stats(),
                                  "conv_stats": g.specs[0].compiled.gpu_stats()}))
""")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_entries_and_library_choices_are_reused(tmp_path):
    import json

    env = dict(os.environ, TGC_CACHE_DIR=str(tmp_path),
               PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("TGC_CACHE", None)
    results = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", CUDA_CHILD], capture_output=True,
                           text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        line = next(x for x in r.stdout.splitlines() if x.startswith("RESULT "))
        results.append(json.loads(line[7:]))
    first, second = results
    assert (first["status"], second["status"]) == ("miss", "hit")
    # The first process timed its GEMM shapes; the second took the choices.
    assert first["stats"]["gemm_tunings"] >= 1
    assert second["stats"]["gemm_tunings"] == 0
    assert second["stats"]["gemm_tunings_from_disk"] == first["stats"]["gemm_tunings"]
    assert glob.glob(os.path.join(str(tmp_path), "gemm-tuning", "*.txt"))
    # The same for cuDNN's engine choices (the 3x3 convolution; the 1x1 one
    # is a GEMM).
    assert first["conv_stats"]["convs"] >= 1, first
    assert first["conv_stats"]["conv_tunings"] >= 1, first
    assert second["conv_stats"]["conv_tunings"] == 0, second
    assert second["conv_stats"]["conv_tunings_from_disk"] == first["conv_stats"]["conv_tunings"], \
        (first, second)
    assert glob.glob(os.path.join(str(tmp_path), "cudnn-tuning", "*.txt"))


# The same function at other lines of another file (an edit above it, a copy
# of the model): the key leaves the lines out (docs/compile-cache.md, "Keys
# and source lines"), and what the loaded code reports names the caller's.
MOVED = textwrap.dedent("""
    def f(x, i):
        y = torch.exp(x)
        return torch.gather(y, 1, i) * 2
""")


def _compile_source(tmp_path, name, source):
    path = tmp_path / name
    path.write_text(source)
    namespace = {"torch": torch}
    exec(compile(source, str(path), "exec"), namespace)
    return tgc.compile(namespace["f"], fallback=False), str(path)


@pytest.fixture
def keep_code():
    """Compiles keep their code (the CPU's kernel map and loops)."""
    tgc.set_logs("guard_code")
    yield
    tgc.set_logs("")


def test_moved_lines_hit_and_report_the_callers_lines(tmp_path, monkeypatch, keep_code):
    monkeypatch.setenv("TGC_CACHE_DIR", str(tmp_path / "cache"))
    x = torch.randn(4, 8)
    i = torch.tensor([[1], [2], [3], [0]])
    bad = torch.tensor([[1], [20], [3], [0]])
    want = torch.gather(torch.exp(x), 1, i) * 2
    f, a_py = _compile_source(tmp_path, "a.py", MOVED)
    torch.testing.assert_close(f(x, i), want)
    assert f.specs[0].compiled.cache_status == "miss"
    with pytest.raises(tgc.TgcError, match=f"index out of range at {a_py}:4:0"):
        f(x, bad)

    g, b_py = _compile_source(tmp_path, "b.py", "\n" * 5 + MOVED)
    torch.testing.assert_close(g(x, i), want)
    compiled = g.specs[0].compiled
    assert compiled.cache_status == "hit"
    assert compiled.cache_key == f.specs[0].compiled.cache_key
    assert len(entries(tmp_path / "cache")) == 1
    with pytest.raises(tgc.TgcError, match=f"index out of range at {b_py}:9:0") as e:
        g(x, bad)
    assert a_py not in str(e.value)
    kernels = compiled.code("kernels")
    assert f"{b_py}:9" in kernels and a_py not in kernels, kernels
    assert f"{a_py}:4" in f.specs[0].compiled.code("kernels")
    assert not any(a_py in compiled.code(what) for what in ("loops", "guards"))

    # The exp and the gather on one line: another numbering, another key.
    h, _ = _compile_source(tmp_path, "c.py", MOVED.replace(
        "y = torch.exp(x)\n    return torch.gather(y,", "return torch.gather(torch.exp(x),"))
    torch.testing.assert_close(h(x, i), want)
    assert h.specs[0].compiled.cache_status == "miss"


def test_moved_lines_in_a_gpu_entry(tmp_path, monkeypatch):
    # The launch plan's data-check message and kernel map, compiled without
    # a GPU: a hit reads the caller's lines.
    monkeypatch.setenv("TGC_CACHE_DIR", str(tmp_path))
    text = tgc.trace_to_mlir(lambda x, i: torch.gather(torch.exp(x), 1, i) * 2,
                             torch.randn(4, 8), torch.tensor([[1], [2], [3], [0]]))
    locations = sorted(set(re.findall(r'"([^"]*\.py)":(\d+):0', text)))
    assert len(locations) == 1, text  # one line: the lambda's
    (file, line), = locations
    moved = text.replace(f'"{file}":{line}:0', '"/elsewhere/net.py":77:0')
    opts = "device=cuda keep-code=1 " + _cache.compile_options()
    a = _capi.Compiled(text, "", opts)
    b = _capi.Compiled(moved, "", opts)
    assert (a.cache_status, b.cache_status) == ("miss", "hit")
    assert f"{file}:{line}" in a.code("plan") and f"{file}:{line}" in a.code("kernels")
    for what in ("plan", "kernels"):
        assert "/elsewhere/net.py:77" in b.code(what) and file not in b.code(what), b.code(what)
    assert b.code("plan") == a.code("plan").replace(f"{file}:{line}", "/elsewhere/net.py:77")
