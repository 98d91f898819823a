#!/usr/bin/env python3
"""Compile times of real models: cold, warm in the process, warm from the
disk cache; torch.compile's cold and warm next to them (issue 22).

Each measurement is a fresh process (imports done before the clock starts,
TGC's operator table included, which the first trace would import):

- cold: an empty compile cache; the first call of `tgc.compile(model)`
  (trace, compile, load, run);
- in-process: in the same process, a second `tgc.compile` of the same model
  with the disk cache off: what a compile costs once MLIR and LLVM are
  initialized;
- disk: a new process with the cache the cold run filled;
- torch.compile cold / warm (PyTorch 2.x): its first call with empty
  Inductor and Triton caches, then in a new process with them filled (the
  FX graph cache, AOTAutograd cache and Triton's kernels).

    utils/bench/compile_cache.py [--models cpu|gpu|all|NAME,...]
                                 [--repeat N] [--no-torch-compile] [--json OUT]

Single cold processes vary by 1.3-1.5x on the machines TGC is measured on:
`--repeat N` measures cold, in-process and disk N times (each time with an
empty cache again) and prints each column's median with its range; the
phases are the median cold run's. torch.compile runs once either way.

Every result is compared with eager PyTorch (max abs error printed). Models:
the CPU 6-block Linear+LayerNorm+GELU stack, and where transformers is
installed GPT-2 with 2 and 24 layers on the CPU (cpu-gpt2-2, cpu-gpt2-24);
on the GPU the zoo's HF BERT (4 layers), HF ViT and torchvision
ConvNeXt-tiny, and GPT-2 with 2 and 24 layers of the same width (a
transformer's layers are the same kernels).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CHILD = r'''
import json, os, sys, time, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.join(sys.argv[4], "utils", "zoo"))
import torch
import tgc
import tgc._ops  # the tracer's operator table, imported on the first trace
name, device, mode = sys.argv[1], sys.argv[2], sys.argv[3]
torch.manual_seed(0)


def build():
    if name == "cpu-stack":
        layers = []
        for _ in range(6):
            layers += [torch.nn.Linear(256, 256), torch.nn.LayerNorm(256), torch.nn.GELU()]
        return torch.nn.Sequential(*layers), (torch.randn(32, 256),), {}
    if name.startswith(("gpt2-", "cpu-gpt2-")):
        import transformers
        cfg = transformers.GPT2Config(n_layer=int(name.split("-")[-1]), n_embd=256, n_head=4,
                                      vocab_size=1000, n_positions=256)
        return (transformers.GPT2Model(cfg), (torch.randint(0, 1000, (2, 64)),), {})
    import models
    entry = models.ALL[name]
    batch, seq = entry.sizes[0]
    args, kwargs = entry.inputs(batch, seq, "cpu")
    return entry.build(), args, kwargs


def to(x, dev):
    return x.to(dev) if isinstance(x, torch.Tensor) else x


model, args, kwargs = build()
model = model.to(device).eval()
args = tuple(to(a, device) for a in args)
kwargs = {k: to(v, device) for k, v in kwargs.items()}


def first(v):
    while not isinstance(v, torch.Tensor):
        v = v[0] if isinstance(v, (tuple, list)) else (
            v.last_hidden_state if hasattr(v, "last_hidden_state") else v[0])
    return v


def call(fn):
    if device == "cuda":
        torch.cuda.synchronize()
    t = time.perf_counter()
    with torch.no_grad():
        out = fn(*args, **kwargs)
    if device == "cuda":
        torch.cuda.synchronize()
    return out, (time.perf_counter() - t) * 1e3


with torch.no_grad():
    want = first(model(*args, **kwargs))
result = {}
if mode == "torch":
    fn = torch.compile(model)
    out, ms = call(fn)
    result["first_ms"] = ms
else:
    fn = tgc.compile(model)
    out, ms = call(fn)
    result["first_ms"] = ms
    e = tgc.explain(fn)
    result["phases"] = [[n, round(t, 1)] for s in e.specializations for n, t in s.phases]
    result["disk"] = [c for s in e.specializations for c in s.disk_cache]
    result["compiles"] = e.compiles
    result["graph_breaks"] = len(e.graph_breaks)
    if mode == "cold":
        # The same model compiled again in this process, disk cache off.
        os.environ["TGC_CACHE"] = "0"
        again = tgc.compile(model)
        _, ms2 = call(again)
        result["in_process_ms"] = ms2
result["max_abs_err"] = float((first(out).float() - want.float()).abs().max())
print("RESULT " + json.dumps(result))
'''


def run(name, device, mode, env):
    r = subprocess.run([sys.executable, "-c", CHILD, name, device, mode, ROOT],
                       capture_output=True, text=True, env=env, timeout=1200)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": (r.stderr.strip().splitlines() or ["no output"])[-1][:200]}


def median_run(runs, key):
    """The run whose `key` is the median (the lower one of an even count)."""
    ordered = sorted(runs, key=lambda x: x[key])
    return ordered[(len(ordered) - 1) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="all")
    p.add_argument("--repeat", type=int, default=1,
                   help="cold, in-process and disk runs per model (medians printed)")
    p.add_argument("--no-torch-compile", action="store_true")
    p.add_argument("--json", default=None)
    a = p.parse_args()
    import torch

    cpu = ["cpu-stack"]
    try:
        import transformers  # noqa: F401
        cpu += ["cpu-gpt2-2", "cpu-gpt2-24"]
    except ImportError:
        pass
    gpu = ["hf-bert", "hf-vit", "tv-convnext-tiny", "gpt2-2", "gpt2-24"]
    names = {"cpu": cpu, "gpu": gpu, "all": cpu + gpu}.get(a.models, a.models.split(","))
    has_cuda = torch.cuda.is_available()
    has_compile = hasattr(torch, "compile") and not a.no_torch_compile
    rows = []
    for name in names:
        device = "cpu" if name.startswith("cpu") else "cuda"
        if device == "cuda" and not has_cuda:
            continue
        row = {"model": name, "device": device, "cold_runs": [], "disk_runs": []}
        for r in range(max(1, a.repeat)):
            with tempfile.TemporaryDirectory() as tmp:
                env = dict(os.environ, TGC_CACHE_DIR=os.path.join(tmp, "tgc"),
                           TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                           TRITON_CACHE_DIR=os.path.join(tmp, "triton"))
                env.pop("TGC_CACHE", None)
                env["PYTHONPATH"] = env.get("PYTHONPATH") or os.path.join(ROOT, "python")
                row["cold_runs"].append(run(name, device, "cold", env))
                row["disk_runs"].append(run(name, device, "disk", env))
                if has_compile and r == 0:
                    row["torch_cold"] = run(name, device, "torch", env)
                    row["torch_warm"] = run(name, device, "torch", env)
        rows.append(row)
        failed = [x for x in row["cold_runs"] + row["disk_runs"] if "error" in x]
        if failed:
            print(f"{name:18s} error: {failed[0]['error']}", flush=True)
            continue
        c = median_run(row["cold_runs"], "first_ms")
        d = median_run(row["disk_runs"], "first_ms")
        row["cold"], row["disk"] = c, d
        count = len(row["cold_runs"])

        def col(key, runs):
            values = sorted(x[key] for x in runs)
            text = f"{values[(len(values) - 1) // 2]:8.1f} ms"
            return text if count == 1 else f"{text} ({values[0]:.1f}-{values[-1]:.1f})"

        line = (f"{name:18s} {device:4s} cold {col('first_ms', row['cold_runs'])}  in-process "
                f"{col('in_process_ms', row['cold_runs'])}  disk "
                f"{col('first_ms', row['disk_runs'])} "
                f"({100 * d['first_ms'] / c['first_ms']:4.0f}%, {d['disk'].count('hit')}/"
                f"{len(d['disk'])} hits, trace {sum(t for n, t in d['phases'] if n == 'trace'):.1f} ms)"
                f"  max err {max(x['max_abs_err'] for x in row['cold_runs'] + row['disk_runs']):.1e}"
                + ("" if count == 1 else f"  [median of {count}]"))
        if has_compile:
            tc, tw = row["torch_cold"], row["torch_warm"]
            if "error" in tc or "error" in tw:
                line += f"  torch.compile error: {tc.get('error') or tw.get('error')}"
            else:
                line += (f"  torch.compile cold {tc['first_ms']:8.1f} ms warm "
                         f"{tw['first_ms']:8.1f} ms")
        print(line, flush=True)
        print("    cold phases: " + ", ".join(f"{n} {t}" for n, t in c["phases"]), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
