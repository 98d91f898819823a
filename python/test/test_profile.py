"""tgc.profile: each compiled region of a call timed again on copies of its
inputs; on the GPU each kernel alone, with its bytes and bandwidth
(issue 23). The CPU cases run everywhere; the CUDA ones need a GPU."""

import pytest
import torch

import tgc

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(64, 64)
        self.norm = torch.nn.LayerNorm(64)

    def forward(self, x):
        return torch.softmax(self.norm(torch.relu(self.fc(x))), dim=-1)


def test_cpu_profile_times_the_call_and_returns_its_result():
    m = Block()
    c = tgc.compile(m)
    x = torch.randn(8, 64)
    with torch.no_grad():
        p = tgc.profile(c, x, repeat=3)
        torch.testing.assert_close(p.result, m(x), rtol=1e-5, atol=1e-5)
    assert isinstance(p, tgc.Profile) and len(p.regions) == 1
    region = p.regions[0]
    assert region.device == "cpu" and region.profile.repeat == 3
    assert region.profile.call_ms is not None and region.profile.call_ms > 0
    assert p.call_ms == region.profile.call_ms
    assert not region.profile.steps  # the CPU times the whole region
    assert "Block (cpu)" in str(p) and "not timed one by one" in str(p)
    # The profile shows in tgc.explain.
    assert "profiled:" in tgc.explain(c).specializations[0].headline()


def test_profile_runs_on_copies_in_place_updates_happen_once():
    def bump(x):
        x.add_(1)
        return x * 2

    c = tgc.compile(bump)
    x = torch.zeros(5)
    p = tgc.profile(c, x, repeat=4)
    assert torch.equal(x, torch.ones(5))  # the real call's update alone
    assert torch.equal(p.result, torch.full((5,), 2.0))


def test_profile_covers_each_region_between_graph_breaks():
    def f(x):
        y = torch.relu(x) + 1
        z = torch.fft.fft(y).real  # complex: a graph break
        return z * 3

    c = tgc.compile(f)
    x = torch.randn(4, 8)
    p = tgc.profile(c, x, repeat=2)
    torch.testing.assert_close(p.result, f(x), rtol=1e-4, atol=1e-4)
    assert len(p.regions) == 2, str(p)
    assert all(r.profile.call_ms is not None for r in p.regions)


def test_profile_rejects_what_it_cannot_profile():
    with pytest.raises(TypeError, match="takes what tgc.compile returns"):
        tgc.profile(lambda x: x, torch.ones(2))
    c = tgc.compile(lambda x: x + 1)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="repeat must be"):
            tgc.profile(c, torch.ones(2), repeat=bad)
    # Nothing compiled ran: the function runs eagerly.
    e = tgc.compile(lambda x: x + 1)
    tgc.set_stance("force_eager")
    try:
        with pytest.raises(RuntimeError, match="no compiled code ran"):
            tgc.profile(e, torch.ones(2))
    finally:
        tgc.set_stance("default")


def test_a_call_that_needs_gradients_profiles_its_forward_graph():
    m = torch.nn.Linear(4, 4)
    p = tgc.profile(tgc.compile(m), torch.randn(2, 4), repeat=2)
    assert p.result.requires_grad  # the training path ran
    assert [r.name for r in p.regions] == ["Linear_forward"], str(p)


@cuda
def test_cuda_profile_times_each_kernel_with_its_bandwidth(tmp_path):
    m = Block().cuda()
    c = tgc.compile(m)
    x = torch.randn(4096, 64, device="cuda")
    with torch.no_grad():
        p = tgc.profile(c, x, repeat=10)
        torch.testing.assert_close(p.result, m(x), rtol=1e-4, atol=1e-4)
    region = p.regions[0].profile
    assert region.device and region.call_ms and region.call_ms > 0
    kinds = [s.kind for s in region.steps]
    assert "gemm" in kinds and "launch" in kinds, region.steps
    for s in region.steps:
        assert s.ms is not None and s.ms > 0, s
        assert s.bytes and s.bytes > 0 and s.gbps and s.gbps > 0, s
        # Bytes over time stays near the memory's peak: above it only as
        # far as the L2 cache serves repeated runs (a byte count several
        # times too large would show here).
        if region.peak_gbps:
            assert s.gbps < 3 * region.peak_gbps, (s, region.peak_gbps)
    gemm = next(s for s in region.steps if s.kind == "gemm")
    assert gemm.flops == 2 * 4096 * 64 * 64 and gemm.tflops > 0
    text = str(tgc.explain(c))
    assert "kernels (last tgc.profile)" in text and "GB/s" in text
    page = tgc.explain(c).save_html(str(tmp_path / "block.html"))
    html = open(page).read()
    assert "GB/s" in html and "cuBLASLt" in html and "bandwidth" in html


def _jitdumps(env_extra, tmp_path):
    """Runs a CPU compile in a child process; returns the jitdump files
    LLVM's perf listener wrote under tmp_path."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "TGC_PERF_JIT"}
    env.update(JITDUMPDIR=str(tmp_path), TGC_CACHE="0", **env_extra)
    # The child imports the tgc this test runs (conftest puts it on sys.path).
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tgc.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    code = ("import torch, tgc\n"
            "f = tgc.compile(lambda a: (a * 2).relu())\n"
            "f(torch.randn(64, 64))\n")
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return list(tmp_path.rglob("jit-*.dump"))


def test_perf_jit_writes_jitdump_only_on_request(tmp_path):
    off = tmp_path / "off"
    on = tmp_path / "on"
    off.mkdir()
    on.mkdir()
    assert _jitdumps({}, off) == []
    dumps = _jitdumps({"TGC_PERF_JIT": "1"}, on)
    if not dumps:
        pytest.skip("this LLVM has no perf listener (LLVM_USE_PERF off)")
    assert dumps[0].stat().st_size > 0
