"""The call path's cost from Python (issue 20's rows): `python_bench.py
--call-path`.

Each row runs one function with eager PyTorch, torch.compile (Inductor,
default and reduce-overhead, where PyTorch has it), tgc.compile (default and
reduce-overhead) and torch.compile(backend="tgc"), all in one process, and
prints per call:
  wall   the median wall time of one call followed by a device
         synchronization (µs): what a caller that waits sees;
  tput   the time per call of back-to-back calls with one synchronization
         at the end (µs; CUDA events on the GPU; at least 100 calls and
         20 ms, best of three): what a model that chains
         calls sees, launch overhead hidden where the GPU is busier than
         the host;
and the bandwidth (GB/s, bytes read and written once) or TFLOP/s of the
throughput time. Every output is checked against eager first. With
`--phases`, each tgc row is followed by where its native calls' host time
goes (tgc._native_path.phase_profile, µs per call, back-to-back calls).
With TGC_BENCH_HOST_CHECKS=1, a "tgc r-o host checks" row compiles with
options="device-asserts=0" (device-side checks read on the host).
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Callable, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc


class Stack(nn.Module):
    """`depth` x (Linear(width) + ReLU)."""

    def __init__(self, depth: int, width: int):
        super().__init__()
        self.layers = nn.Sequential(*[m for _ in range(depth)
                                      for m in (nn.Linear(width, width), nn.ReLU())])

    def forward(self, x):
        return self.layers(x)


def _rows(device: str):
    """(name, make fn, make args, bytes, flops) per row."""
    cuda = device == "cuda"
    n = 4096 if cuda else 1024
    rows = [
        ("x + 1, one element", lambda: (lambda x: x + 1),
         lambda: (torch.randn(1, device=device),), 8, 0),
        (f"relu(x+y)*2, {n}^2 f32", lambda: (lambda x, y: torch.relu(x + y) * 2),
         lambda: (torch.randn(n, n, device=device), torch.randn(n, n, device=device)),
         3 * n * n * 4, 0),
    ]
    r = 8192 if cuda else 1024
    rows.append((f"softmax {r}x1024 f32", lambda: (lambda x: torch.softmax(x, -1)),
                 lambda: (torch.randn(r, 1024, device=device),), 2 * r * 1024 * 4, 0))
    if cuda:
        rows.append((f"softmax {r}x1024 bf16", lambda: (lambda x: torch.softmax(x, -1)),
                     lambda: (torch.randn(r, 1024, device=device, dtype=torch.bfloat16),),
                     2 * r * 1024 * 2, 0))
        k = 4096
        rows.append(("gelu(x W + b) bf16 4096^3",
                     lambda: (lambda x, w, b: F.gelu(x @ w + b)),
                     lambda: (torch.randn(k, k, device=device, dtype=torch.bfloat16),
                              torch.randn(k, k, device=device, dtype=torch.bfloat16) / 64,
                              torch.randn(k, device=device, dtype=torch.bfloat16)),
                     0, 2 * k * k * k))
    else:
        rows.append(("3 x (Linear 256 + ReLU), batch 4",
                     lambda: Stack(3, 256).eval(),
                     lambda: (torch.randn(4, 256),), 0, 2 * 3 * 4 * 256 * 256))
    rows.append(("20 x (Linear 256 + ReLU), batch 8",
                 lambda: Stack(20, 256).to(device).eval(),
                 lambda: (torch.randn(8, 256, device=device),), 0, 2 * 20 * 8 * 256 * 256))
    import importlib.util
    if cuda and importlib.util.find_spec("transformers"):
        # Real models from configs (random weights), the last hidden state.
        from python_bench import LastHidden

        def model(config_cls, model_cls, **config):
            return lambda: LastHidden(config_cls, model_cls, **config).to(device).eval()

        def ids(vocab):
            return lambda: (torch.randint(0, vocab, (8, 128), device=device),)

        rows.append(("HF BERT 4 x 256, batch 8 x 128", model(
            "BertConfig", "BertModel", num_hidden_layers=4, hidden_size=256,
            num_attention_heads=4, intermediate_size=1024, vocab_size=8000), ids(8000), 0, 0))
        rows.append(("HF GPT-2 4 x 256, batch 8 x 128", model(
            "GPT2Config", "GPT2Model", n_layer=4, n_embd=256, n_head=4, vocab_size=8000,
            n_positions=256), ids(8000), 0, 0))
        rows.append(("HF Llama 4 x 256, batch 8 x 128", model(
            "LlamaConfig", "LlamaModel", num_hidden_layers=4, hidden_size=256,
            num_attention_heads=4, num_key_value_heads=2, intermediate_size=512,
            vocab_size=8000), ids(8000), 0, 0))
    return rows


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def _wall(fn, args, device: str, reps: int) -> float:
    times = []
    for _ in range(reps):
        _sync(device)
        t0 = time.perf_counter()
        fn(*args)
        _sync(device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def _throughput(fn, args, device: str, reps: int) -> float:
    """µs per call of back-to-back calls (best of three): at least `reps`
    calls and 20 ms."""
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(10):
        fn(*args)
    _sync(device)
    each = (time.perf_counter() - t0) / 10
    reps = max(reps, min(2000, int(0.02 / max(each, 1e-7))))
    best = float("inf")
    for _ in range(3):
        _sync(device)
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(reps):
                fn(*args)
            end.record()
            end.synchronize()
            us = start.elapsed_time(end) * 1e3 / reps
        else:
            t0 = time.perf_counter()
            for _ in range(reps):
                fn(*args)
            us = (time.perf_counter() - t0) * 1e6 / reps
        best = min(best, us)
    return best


def _same(a, b) -> bool:
    if isinstance(a, (tuple, list)):
        return all(_same(x, y) for x, y in zip(a, b))
    tol = 2e-2 if a.dtype in (torch.bfloat16, torch.float16) else 1e-3
    return torch.allclose(a.float(), b.float(), rtol=tol, atol=tol)


def _compilers(has_compile: bool) -> List[Tuple[str, Callable]]:
    out: List[Tuple[str, Callable]] = [("eager", lambda f: f)]
    def fresh(**kw):
        # Dynamo caches per code object: a second torch.compile of the same
        # function with another backend would count as its recompiles.
        def wrap(f):
            torch._dynamo.reset()
            return torch.compile(f, **kw)
        return wrap

    if has_compile:
        out.append(("inductor", fresh()))
        out.append(("inductor r-o", fresh(mode="reduce-overhead")))
    out.append(("tgc", lambda f: tgc.compile(f)))
    out.append(("tgc r-o", lambda f: tgc.compile(f, mode="reduce-overhead")))
    if os.environ.get("TGC_BENCH_HOST_CHECKS") == "1":
        # Reduce-overhead with its device-side checks read on the host
        # (before 2026-11-30's device asserts), for a comparison.
        out.append(("tgc r-o host checks", lambda f: tgc.compile(
            f, mode="reduce-overhead", options="device-asserts=0")))
    if has_compile:
        out.append(("backend=tgc", fresh(backend="tgc")))
    return out


def _phases(compiled, args, device: str, reps: int) -> str:
    """The host time per phase of `reps` back-to-back native calls."""
    from tgc import _native_path

    _sync(device)
    with _native_path.phase_profile() as phases:
        for _ in range(reps):
            compiled(*args)
    _sync(device)
    calls = phases.pop("calls", 0)
    if not calls:
        return "no native calls"
    total = sum(phases.values())
    return f"{total:.1f} us host: " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items())


def run(device: str, reps: int, only: str = "", phases: bool = False) -> None:
    has_compile = hasattr(torch, "compile")
    print(f"# call path on {device} ({torch.cuda.get_device_name() if device == 'cuda' else 'cpu'}), "
          f"PyTorch {torch.__version__}; wall: one call + sync (median of {reps}); "
          f"tput: back-to-back calls (at least {reps} and 20 ms, best of 3)")
    print(f"{'row':34s} {'compiler':13s} {'wall us':>9s} {'tput us':>9s} {'rate':>12s} "
          f"{'x eager':>8s} native")
    for name, make_fn, make_args, nbytes, flops in _rows(device):
        if only and only not in name:
            continue
        torch.manual_seed(0)
        fn = make_fn()
        args = make_args()
        with torch.no_grad():
            expected = fn(*args)
            eager_tput: Optional[float] = None
            for cname, wrap in _compilers(has_compile):
                try:
                    compiled = wrap(fn)
                    got = compiled(*args)
                    if not _same(got, expected):
                        print(f"{name:34s} {cname:13s} WRONG RESULT")
                        continue
                    for _ in range(3):  # warm: captures, tuning
                        compiled(*args)
                    wall = _wall(compiled, args, device, reps)
                    tput = _throughput(compiled, args, device, reps)
                except Exception as e:  # noqa: BLE001 - a row, not the run
                    print(f"{name:34s} {cname:13s} failed: {type(e).__name__}: {str(e)[:80]}")
                    continue
                if cname == "eager":
                    eager_tput = tput
                rate = ""
                if nbytes:
                    rate = f"{nbytes / tput / 1e3:8.1f} GB/s"
                elif flops:
                    rate = f"{flops / tput / 1e6:7.2f} TFLOP/s"
                ratio = f"{eager_tput / tput:8.2f}" if eager_tput else ""
                native = ""
                if hasattr(compiled, "_native_calls"):
                    native = str(compiled._native_calls())
                print(f"{name:34s} {cname:13s} {wall:9.1f} {tput:9.1f} {rate:>12s} {ratio:>8s} "
                      f"{native}")
                if phases and native:
                    print(f"{'':34s} {'':13s} phases: {_phases(compiled, args, device, reps)}")
