#!/usr/bin/env python3
"""Eager PyTorch ops between compiled CPU calls: what TGC's OpenMP workers
cost PyTorch's own thread pool (docs/cpu-pipeline.md, "Threads: TGC's
OpenMP runtime and PyTorch's").

Times, in one process, an eager op alone, a compiled call alone, and the
two in turn; prints the excess of the pair over the sum of its parts (ms
per pair; 0 when neither pool gets in the other's way). Run it once as it
is (TGC's workers wait 1 ms after a parallel region) and once with
KMP_BLOCKTIME=200 (LLVM's default, TGC's before 2026-11-30):

  PYTHONPATH=python python3 utils/bench/omp_interplay.py [--rounds 5]
  KMP_BLOCKTIME=200 PYTHONPATH=python python3 utils/bench/omp_interplay.py
"""
import argparse
import os
import statistics
import time

import torch
import torch.nn.functional as F

import tgc


def per_call(fn, n):
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--calls", type=int, default=10)
    a = p.parse_args()
    torch.manual_seed(0)
    big = torch.randn(4096, 4096)
    x, w, b = torch.randn(256, 768), torch.randn(768, 768), torch.randn(768)
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(256, 256), torch.nn.LayerNorm(256), torch.nn.GELU()]
    stack, xs = torch.nn.Sequential(*layers), torch.randn(512, 256)
    cases = {"linear 256x768->768": (tgc.compile(lambda x, w, b: F.linear(x, w, b)), (x, w, b)),
             "6-block stack, 512 rows": (tgc.compile(stack), (xs,))}
    eager = lambda: torch.exp(big)  # noqa: E731
    print(f"# {torch.get_num_threads()} PyTorch threads, KMP_BLOCKTIME="
          f"{os.environ.get('KMP_BLOCKTIME', 'unset (TGC: 1 ms)')}; medians of {a.rounds} rounds, ms")
    print(f"{'compiled call':>26} {'eager exp':>10} {'compiled':>9} {'in turn':>8} {'excess':>8}")
    with torch.no_grad():
        for name, (f, args) in cases.items():
            f(*args)
            call = lambda: f(*args)  # noqa: E731

            def both():
                call()
                eager()
            t = {k: statistics.median(per_call(fn, a.calls) for _ in range(a.rounds))
                 for k, fn in (("eager", eager), ("tgc", call), ("both", both))}
            print(f"{name:>26} {t['eager']:10.2f} {t['tgc']:9.3f} {t['both']:8.2f} "
                  f"{t['both'] - t['eager'] - t['tgc']:+8.2f}")


if __name__ == "__main__":
    main()
