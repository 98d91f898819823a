"""The compile report (TGC_TRACE / Explanation.save_html) renders in a real
browser: headless Chromium loads the page, runs its script with no error
and lays out every kernel (issue 23)."""

import os
import re
import shutil
import subprocess

import pytest
import torch

import tgc
from tgc import _report


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.norm = torch.nn.LayerNorm(32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.norm(self.fc1(x))))


def _compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("TGC_TRACE", str(tmp_path / "trace"))
    c = tgc.compile(Net())
    with torch.no_grad():
        c(torch.randn(4, 16))
        c(torch.randn(6, 16))  # a recompile: two specializations
    return c


def test_trace_dir_gets_a_page_per_function(tmp_path, monkeypatch):
    c = _compiled(tmp_path, monkeypatch)
    page = tmp_path / "trace" / "Net.html"
    assert page.exists()
    text = page.read_text()
    e = tgc.explain(c)
    assert text.count("<h2>Specialization") == e.compiles == 2
    # The graph's ops carry their kernel's colour; the arena and the phases
    # are drawn.
    assert 'class="op" data-kernel="0"' in text
    assert '<svg class="arena"' in text and '<svg class="phases"' in text
    assert "self.fc1.weight" in text and "Recompiles" in text
    kernels = _report.parse_kernel_map(e.specializations[0].kernel_map)
    assert len(kernels) == e.specializations[0].kernels, kernels
    arena = _report.parse_arena(e.specializations[0].arena_layout)
    assert arena and max(o + b for o, b, _, _ in arena) <= e.specializations[0].arena_bytes


def test_save_html_escapes_and_writes_atomically(tmp_path):
    def f(x):
        return x * 2 + 1

    c = tgc.compile(f)
    with torch.no_grad():
        c(torch.randn(3))
    path = tgc.explain(c).save_html(str(tmp_path / "sub" / "f.html"))
    text = open(path).read()
    assert text.startswith("<!DOCTYPE html>") and "</html>" in text
    assert "func.func @f(%arg0: tensor&lt;3xf32&gt; loc(&quot;x&quot;))" in text
    assert not [p for p in os.listdir(tmp_path / "sub") if p.endswith(".tmp")]


@pytest.mark.skipif(_chromium() is None, reason="no Chromium (utils/setup.sh installs it)")
def test_report_renders_in_headless_chromium(tmp_path, monkeypatch):
    c = _compiled(tmp_path, monkeypatch)
    page = tmp_path / "trace" / "Net.html"
    kernels = sum(s.kernels for s in tgc.explain(c).specializations)
    run = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         "--enable-logging=stderr", "--v=0", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    dom = run.stdout
    assert run.returncode == 0, run.stderr[-2000:]
    # The page's script ran to its end with no error and found every kernel.
    assert 'data-rendered="ok"' in dom, (dom[:500], run.stderr[-2000:])
    assert f'data-kernels="{kernels}"' in dom, dom[:300]
    assert "Uncaught" not in run.stderr, run.stderr[-2000:]


def test_gpu_kernel_map_steps_and_bytes_without_a_gpu():
    # Compiling for CUDA needs no GPU: the kernel map names each kernel's
    # model lines, and the report evaluates the plan's grids for the sizes.
    from tgc import _capi

    m = Net()
    x = torch.randn(4, 16)
    text = tgc.trace_to_mlir(m, x)
    c = _capi.Compiled(text, "Net", "device=cuda keep-code=1 duck=0")
    kernels = _report.parse_kernel_map(c.code("kernels"))
    assert [k for k, _ in kernels if k.startswith("gemm")] == ["gemm", "gemm"], kernels
    assert any("LayerNorm" in s for _, srcs in kernels for s in srcs), kernels
    # Each plan step for the example sizes: strategy, launch and the bytes
    # it reads and writes (tgc_compiled_code "steps").
    steps = c.steps()
    assert [s.kind for s in steps if s.kind == "gemm"] == ["gemm", "gemm"], steps
    first = steps[0]
    assert (first.kind, first.strategy, first.launch) == (
        "gemm", "cuBLASLt + bias", "m 4 n 32 k 16 batch 1 f32"), first
    # A, B, C and the bias, f32: (4*16 + 16*32 + 4*32 + 32) * 4 bytes.
    assert first.bytes == (4 * 16 + 16 * 32 + 4 * 32 + 32) * 4
    assert first.flops == 2 * 4 * 32 * 16
    launches = [s for s in steps if s.kind == "launch"]
    assert launches and all(re.fullmatch(r"grid \d+x1x1 block \d+x1x1", s.launch)
                            for s in launches), launches
    assert all(s.bytes and s.bytes > 0 and s.strategy for s in launches), launches
    assert all(s.ms is None for s in steps)  # not timed
    phases = [n for n, _ in c.phases()]
    assert phases[:2] == ["parse", "frontend"] and "launch plan" in phases, phases


def test_gpu_cudnn_convolution_steps_without_a_gpu():
    # With cudnn-convolutions a CUDA compile's f32 convolution is one cuDNN
    # step (no GPU needed to compile): the kernel map names it, the step
    # reports its sizes, bytes and multiply-adds; the batch norm after it is
    # a kernel.
    from tgc import _capi

    m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, groups=1),
                            torch.nn.BatchNorm2d(8), torch.nn.ReLU()).eval()
    x = torch.randn(2, 3, 8, 8)
    text = tgc.trace_to_mlir(m, x)
    c = _capi.Compiled(text, "Sequential", "device=cuda duck=0 cudnn-convolutions=1 "
                       "tf32-convolutions=1")
    kernels = _report.parse_kernel_map(c.code("kernels"))
    assert [k for k, _ in kernels if k == "conv"] == ["conv"], kernels
    convs = [s for s in c.steps() if s.kind == "conv"]
    assert len(convs) == 1, c.steps()
    conv = convs[0]
    assert (conv.strategy, conv.launch) == ("cuDNN TF32", "x 2x3x8x8 w 8x3x3x3 y 2x8x4x4"), conv
    assert conv.bytes == (2 * 3 * 8 * 8 + 8 * 3 * 3 * 3 + 2 * 8 * 4 * 4) * 4
    assert conv.flops == 2 * (2 * 8 * 4 * 4) * (3 * 3 * 3)
    assert not [s for s in c.steps() if s.kind == "gemm"]
    # Without the option: an im2col GEMM.
    c = _capi.Compiled(text, "Sequential", "device=cuda duck=0")
    assert [s.kind for s in c.steps() if s.kind in ("gemm", "conv")] == ["gemm"]
