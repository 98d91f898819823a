"""A compile that runs long warns and leaves a reproducer (tgc._watch)."""

import os
import subprocess
import time
import warnings

import pytest
import torch

import tgc
from tgc import _watch

GRAPH = """func.func @f(%arg0: tensor<?x4xf32> loc("x")) -> tensor<?x4xf32> {
  %0 = tgc.add %arg0, %arg0 : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
"""


def test_a_slow_compile_warns_once_with_its_reproducer(tmp_path, monkeypatch):
    monkeypatch.setenv("TGC_SLOW_COMPILE_DIR", str(tmp_path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _watch.slow_compile(GRAPH, "f", "device=cpu duck=0 zero-one=1 example=0:6x4",
                                 limit=0.05):
            time.sleep(0.5)
    messages = [str(w.message) for w in caught if "has taken more than" in str(w.message)]
    assert len(messages) == 1, messages
    (folder,) = tmp_path.iterdir()
    assert str(folder) in messages[0]
    assert (folder / "graph.mlir").read_text() == GRAPH
    assert "example=0:6x4" in (folder / "options.txt").read_text()
    script = (folder / "repro.sh").read_text()
    # The options that change what is compiled carry over as tgc-run's flags.
    assert ("tgc-run graph.mlir --entry f --device cpu --duck-sizing=0 "
            "--specialize-zero-one=1 --shape 0=6x4") in script
    build = os.environ.get("TGC_BUILD_DIR")
    tool = os.path.join(build, "bin", "tgc-run") if build else None
    if tool and os.path.exists(tool):
        # The reproducer compiles (and on the CPU runs) the same graph.
        env = dict(os.environ, PATH=os.path.dirname(tool) + os.pathsep + os.environ["PATH"])
        done = subprocess.run(["sh", str(folder / "repro.sh")], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr


def test_reproducer_flags_follow_the_options():
    """Each compile option that changes the compiled program maps to the
    tgc-run flag that sets it (GPU ones included); cache options do not."""
    flags = _watch._run_flags("device=cuda duck=0 tf32-matmuls=1 tf32-convolutions=0 "
                              "cudnn-convolutions=1 fuse=0 decompose=1 cache-dir=/tmp/x "
                              "example=0:2x3")
    assert flags == ["--duck-sizing=0", "--gpu-tf32-matmuls=1", "--gpu-tf32-convolutions=0",
                     "--gpu-cudnn-convolutions=1", "--no-fuse"]


def test_a_fast_compile_says_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("TGC_SLOW_COMPILE_DIR", str(tmp_path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _watch.slow_compile(GRAPH, "f", "device=cpu", limit=30):
            pass
        time.sleep(0.1)
    assert not [w for w in caught if "has taken more than" in str(w.message)]
    assert not list(tmp_path.iterdir())


def test_tgc_compile_is_watched(tmp_path, monkeypatch):
    """The compiles of tgc.compile go through the watch: with a limit of 0
    even a normal one reports (the disk cache off, so that it compiles)."""
    monkeypatch.setenv("TGC_SLOW_COMPILE_DIR", str(tmp_path))
    monkeypatch.setenv("TGC_SLOW_COMPILE_S", "0")
    monkeypatch.setenv("TGC_CACHE", "0")
    c = tgc.compile(lambda x: (x * 3).sin())
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        x = torch.randn(5, 3)
        torch.testing.assert_close(c(x), (x * 3).sin())
    deadline = time.time() + 5
    while not list(tmp_path.iterdir()) and time.time() < deadline:
        time.sleep(0.05)
    folders = list(tmp_path.iterdir())
    if not folders:
        pytest.skip("the compile finished before the timer thread ran")
    assert "sin" in (folders[0] / "graph.mlir").read_text()


def test_every_compile_option_is_mapped_or_named_irrelevant():
    """The C API's option keys (lib/CAPI/CompilerCAPI.cpp's parser) against
    the reproducer's mapping: a new option must get a tgc-run flag or be
    named here as changing nothing compiled (else the reproducer would
    silently compile another program)."""
    import re
    source = os.path.join(os.path.dirname(__file__), "..", "..", "lib", "CAPI", "CompilerCAPI.cpp")
    if not os.path.exists(source):
        pytest.skip("no source tree")
    text = open(source).read()
    parser = text[text.index("bool parseOptions("):text.index("/// The options the CPU and GPU")]
    keys = set(re.findall(r'\{"([a-z0-9-]+)", &o\.', parser)) | \
        set(re.findall(r'key == "([a-z0-9-]+)"', parser))
    assert len(keys) > 20, keys
    handled = set(_watch._FLAGS) | {"fuse", "decompose"}
    # device and example are passed on their own; the rest change nothing
    # the passes see.
    irrelevant = {"device", "example", "keep-code", "ptx-only", "cache-dir", "cache-max-mb",
                  "shared-libs"}
    # LLVM's optimization level: tgc-run has no flag for it, and tgc.compile
    # never sets it.
    no_flag = {"opt-level"}
    assert keys - handled - irrelevant - no_flag == set()
