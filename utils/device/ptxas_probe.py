#!/usr/bin/env python3
"""Where ptxas' time goes for real models' kernel modules (issue 22).

For each model: trace it, compile its kernels to PTX (the CAPI's ptx-only
mode, every compile thread), then time ptxas on the whole module with
--split-compile 0 and 1, and each kernel alone (--entry), and print the
slowest kernels. Run on the GPU machine with the Python bundle:

    PYTHONPATH=.python-bundle python3 utils/device/ptxas_probe.py [--models hf-bert,...]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "zoo"))
import torch  # noqa: E402
import tgc  # noqa: E402
from tgc import _capi  # noqa: E402
import models  # noqa: E402


def ptxas_ms(ptxas, ptx, *extra, reps=3):
    best = None
    with tempfile.TemporaryDirectory() as d:
        for _ in range(reps):
            t = time.perf_counter()
            r = subprocess.run([ptxas, "-arch=sm_90", "-O3", ptx, "-o", os.path.join(d, "x.cubin"), *extra],
                               capture_output=True, text=True)
            ms = (time.perf_counter() - t) * 1e3
            if r.returncode != 0:
                return f"error: {r.stderr.strip()[:200]}"
            best = ms if best is None else min(best, ms)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", default="hf-bert,hf-gpt2,tv-convnext-tiny")
    p.add_argument("--device", default="cuda", help="where the trace runs (cpu: to try it without a GPU)")
    args = p.parse_args()
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    for name in args.models.split(","):
        entry = models.ALL[name]
        batch, seq = entry.sizes[0]
        a, kw = entry.inputs(batch, seq, args.device)
        model = entry.build().to(args.device).eval()
        with torch.no_grad():
            text = tgc.trace_to_mlir(model, *a, **kw)
        fn = re.search(r"func\.func @([\w$.]+)", text).group(1)
        t = time.perf_counter()
        c = _capi.Compiled(text, fn, "device=cuda ptx-only=1 keep-code=1 cudnn-convolutions=1")
        compile_ms = (time.perf_counter() - t) * 1e3
        ptx = c.code("ptx")
        entries = re.findall(r"\.entry (\w+)\(", ptx)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            whole0 = ptxas_ms(ptxas, path, "--split-compile", "0")
            whole1 = ptxas_ms(ptxas, path, "--split-compile", "1")
            plain = ptxas_ms(ptxas, path)
            each = sorted(((ptxas_ms(ptxas, path, "--entry", e, reps=1), e) for e in entries),
                          key=lambda x: -x[0] if isinstance(x[0], float) else 0)
        print(f"== {name}: {len(entries)} kernels, {len(ptx)} bytes of PTX, compile to PTX {compile_ms:.0f} ms")
        print(f"   ptxas whole: --split-compile 0 {whole0:.1f} ms, 1 {whole1:.1f} ms, none {plain:.1f} ms")
        total = sum(x[0] for x in each if isinstance(x[0], float))
        print(f"   ptxas per kernel (--entry, each a process): sum {total:.1f} ms")
        for ms, e in each[:6]:
            lines = len(re.search(r"\.entry " + e + r"\((.*?)\n\}\n", ptx, re.S).group(1).splitlines())
            print(f"     {ms:7.1f} ms  {lines:6d} lines  {e}")


if __name__ == "__main__":
    main()
