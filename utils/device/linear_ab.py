"""A/B of the CPU's large x W^T blocks in one process: W packed transposed
(the default) against the dot products before (TGC_EXP_NO_TRANSPOSED_PACK=1,
read by the pass at each compile: a hook of a measuring bundle only), each
compiled once, timed in alternating rounds with eager F.linear (oneDNN /
MKL) as the reference. Prints medians of the rounds and GFLOP/s.

  TGC_CACHE=0 python3 utils/device/linear_ab.py [--rounds 7] [--threads N]
"""
import argparse
import os
import statistics
import time

import torch
import torch.nn.functional as F

import tgc

SHAPES = [(256, 768, 768), (256, 768, 3072), (256, 3072, 768), (256, 768, 2304),
          (2048, 1024, 1024), (128, 768, 1000)]


def per_call(f, args, n):
    t = time.perf_counter()
    for _ in range(n):
        f(*args)
    return (time.perf_counter() - t) / n * 1e3


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", type=int, default=0)
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    print(f"# F.linear with bias, {torch.get_num_threads()} threads, median of {a.rounds} rounds, ms")
    print(f"{'m x k -> n':>20} {'eager':>8} {'packed':>8} {'dot':>8} {'dot/packed':>10} {'GFLOP/s packed':>15}")
    for m, k, n in SHAPES:
        x, w, b = torch.randn(m, k), torch.randn(n, k), torch.randn(n)
        fns = {}
        for name, hook in (("packed", None), ("dot", "1")):
            if hook:
                os.environ["TGC_EXP_NO_TRANSPOSED_PACK"] = hook
            else:
                os.environ.pop("TGC_EXP_NO_TRANSPOSED_PACK", None)
            f = tgc.compile(lambda x, w, b: F.linear(x, w, b))
            torch.testing.assert_close(f(x, w, b), F.linear(x, w, b), rtol=1e-4, atol=2e-3)
            fns[name] = f
        os.environ.pop("TGC_EXP_NO_TRANSPOSED_PACK", None)
        fns["eager"] = F.linear
        n_calls = max(3, int(2e9 / (2 * m * k * n)))
        times = {name: [] for name in fns}
        for _ in range(a.rounds):
            for name, f in fns.items():
                f(x, w, b)
                times[name].append(per_call(f, (x, w, b), n_calls))
        med = {name: statistics.median(t) for name, t in times.items()}
        gf = 2 * m * k * n / med["packed"] / 1e6
        print(f"{f'{m} x {k} -> {n}':>20} {med['eager']:8.3f} {med['packed']:8.3f} {med['dot']:8.3f} "
              f"{med['dot'] / med['packed']:10.2f} {gf:15.1f}")


if __name__ == "__main__":
    main()
