"""TGC's OpenMP runtime next to PyTorch's (docs/cpu-pipeline.md, "Threads:
TGC's OpenMP runtime and PyTorch's"): its workers wait 1 ms after a
parallel region, not LLVM's default 200 ms, unless the user set
KMP_BLOCKTIME. Checked through the runtime's own kmp_get_blocktime in a
child process (the setting is once per process)."""

import os
import subprocess
import sys
import textwrap

import pytest

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

CHILD = textwrap.dedent("""
    import ctypes, torch, tgc
    f = tgc.compile(lambda x: torch.exp(x) * 2 + 1)
    x = torch.randn(512, 512)
    torch.testing.assert_close(f(x), torch.exp(x) * 2 + 1)
    libs = sorted({line.split()[-1] for line in open("/proc/self/maps").read().splitlines()
                   if "/libomp" in line})
    print("BLOCKTIME", ",".join(str(ctypes.CDLL(lib).kmp_get_blocktime()) for lib in libs))
""")


def blocktime(**env):
    environment = dict(os.environ, TGC_CACHE="0",
                       PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    environment.pop("KMP_BLOCKTIME", None)
    environment.update(env)
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                       env=environment, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    line = next(l for l in r.stdout.splitlines() if l.startswith("BLOCKTIME"))
    return line.split(" ", 1)[1] if " " in line else ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_workers_wait_one_millisecond_unless_the_user_says():
    got = blocktime()
    if not got:
        pytest.skip("no LLVM OpenMP runtime loaded (openmp off or another runtime)")
    assert set(got.split(",")) == {"1"}, got
    assert set(blocktime(KMP_BLOCKTIME="7").split(",")) == {"7"}
