"""pytest setup: import the package from this checkout; GPU marks."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# The compile cache of the test session: a folder of its own, empty at the
# start (not the user's ~/.cache/tgc), unless the caller chose one.
if "TGC_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["TGC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tgc-test-cache-")
# The model zoo's models (utils/zoo/models.py), where the checkout has it.
ZOO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "utils", "zoo")
if os.path.isdir(ZOO):
    sys.path.insert(0, ZOO)

import torch  # noqa: E402

import tgc  # noqa: E402


def cuda_ready() -> bool:
    if not torch.cuda.is_available():
        return False
    ok, _ = tgc.cuda_available()
    return ok


requires_cuda = pytest.mark.skipif(not cuda_ready(), reason="needs a CUDA GPU")
requires_torch2 = pytest.mark.skipif(
    int(torch.__version__.split(".")[0]) < 2, reason="needs PyTorch 2.x"
)


@pytest.fixture
def no_disk_cache(monkeypatch):
    """A test about cold compiles (their phases): the compile cache off."""
    monkeypatch.setenv("TGC_CACHE", "0")


@pytest.fixture(autouse=True)
def _default_stance():
    tgc.set_stance("default")
    yield
    tgc.set_stance("default")


def check(fn, *args, dynamic=None, rtol=1e-5, atol=1e-5, **kw):
    """Compiles fn (the whole of it: fullgraph=True unless asked
    otherwise, so that an operator test cannot pass through a graph break),
    runs it on args, compares with eager; returns the compiled function."""
    kw.setdefault("fullgraph", True)
    compiled = tgc.compile(fn, dynamic=dynamic, **kw)
    expected = fn(*args)
    got = compiled(*args)
    assert_same(got, expected, rtol, atol)
    return compiled


def assert_same(got, expected, rtol=1e-5, atol=1e-5):
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, torch.Tensor), type(got)
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert got.shape == expected.shape, (got.shape, expected.shape)
        if expected.dtype.is_floating_point:
            torch.testing.assert_close(got, expected, rtol=rtol, atol=atol, equal_nan=True)
        else:
            assert torch.equal(got, expected), (got, expected)
    elif isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e, rtol, atol)
    else:
        assert got == expected
