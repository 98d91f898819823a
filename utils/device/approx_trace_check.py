#!/usr/bin/env python3
"""Approximate traces on real models (tgc._approximate): for each zoo
model on CPU tensors, the trace with large products and convolutions left
uncomputed must record the exact trace's graph, text for text. Prints each
model's two trace times and how many calls were left uncomputed.

    python3 utils/device/approx_trace_check.py [--family hf,torchvision] [--scale 4]

`--scale` multiplies the zoo's batch size (larger products: more of them
above the threshold). Exit status 1 if a graph differs.
"""

import argparse
import os
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "utils", "zoo"))
warnings.filterwarnings("ignore")

import torch  # noqa: E402

import models  # noqa: E402
from tgc._compile import flatten, unflatten  # noqa: E402
from tgc._trace_loop import trace  # noqa: E402


def traced(model, args, kwargs, approximate):
    tensors, key = flatten((args, kwargs))

    def run(*ts):
        a, k = unflatten(key, list(ts))
        with torch.no_grad():
            return model(*a, **k)
    start = time.perf_counter()
    r = trace(run, [t.clone() for t in tensors], [set() for _ in tensors],
              name=type(model).__name__, approximate=approximate)
    return r, (time.perf_counter() - start) * 1e3


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--family", default="hf,torchvision")
    p.add_argument("--scale", type=int, default=4)
    a = p.parse_args()
    families = a.family.split(",")
    bad = 0
    for name, entry in models.ALL.items():
        if entry.family not in families:
            continue
        try:
            torch.manual_seed(0)
            model = entry.build().eval()
            batch, seq = entry.sizes[0]
            args, kwargs = entry.inputs(batch * a.scale, seq, "cpu")
            approx, t_approx = traced(model, args, kwargs, True)
            exact, t_exact = traced(model, args, kwargs, False)
        except Exception as e:  # noqa: BLE001 - a model the zoo cannot build here
            print(f"{name:<24} skipped: {type(e).__name__}: {str(e)[:100]}")
            continue
        same = approx.text == exact.text
        bad += not same
        print(f"{name:<24} {'same' if same else 'DIFFERENT'} graph; "
              f"{approx.approximated} calls not computed; trace {t_approx:.1f} ms "
              f"(exact {t_exact:.1f} ms)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
