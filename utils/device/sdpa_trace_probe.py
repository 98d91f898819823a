#!/usr/bin/env python3
"""The real attention calls of a CUDA trace (issue 22: a disk hit is
mostly the trace). Session 40's call 3 put 53 of HF BERT-4's ~125 ms CUDA
trace (cProfile) in four real scaled_dot_product_attention calls: the
first loads PyTorch's masked attention kernel, which eager mode never ran
(the trace keeps a padding mask of all ones, tgc._ops.core._eager_call).
This times each attention call the trace makes (host time, where the
tracer makes it) after three eager forwards of the model, and prints the
eager forward's time.

    utils/device/sdpa_trace_probe.py [--models hf-bert,hf-gpt2] [--device cuda]
"""
import argparse
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "utils", "zoo"))

import torch  # noqa: E402
import tgc  # noqa: E402
import tgc._ops  # noqa: E402,F401
import models  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", default="hf-bert,hf-gpt2")
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    os.environ["TGC_CACHE"] = "0"
    for name in a.models.split(","):
        torch.manual_seed(0)
        entry = models.ALL[name]
        batch, seq = entry.sizes[0]
        args, kwargs = entry.inputs(batch, seq, a.device)
        model = entry.build().to(a.device).eval()
        sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
        with torch.no_grad():
            for _ in range(3):
                model(*args, **kwargs)
            sync()
            t = time.perf_counter()
            model(*args, **kwargs)
            sync()
            eager = (time.perf_counter() - t) * 1e3
        # The trace's real calls, timed where the tracer makes them
        # (tgc._ops.core._eager_call): replacing torch's attention function
        # itself would change what the tracer sees (call 4 of session 40
        # did, and timed a Python wrapper's body traced as a function).
        from tgc._ops import core
        times = []
        eager_call = core._eager_call

        def timed(func, name, args, kwargs):
            t0 = time.perf_counter()
            r = eager_call(func, name, args, kwargs)
            if name.split(".")[-1] == "scaled_dot_product_attention":
                times.append((time.perf_counter() - t0) * 1e3)
            return r
        core._eager_call = timed
        try:
            fn = tgc.compile(model)
            with torch.no_grad():
                t = time.perf_counter()
                fn(*args, **kwargs)
                sync()
                first = (time.perf_counter() - t) * 1e3
        finally:
            core._eager_call = eager_call
        phases = dict(tgc.explain(fn).specializations[0].phases)
        print(f"{name} {a.device}: eager forward {eager:.2f} ms; first tgc call {first:.1f} ms, "
              f"trace {phases.get('trace', 0):.1f} ms; its attention calls (ms): "
              + " ".join(f"{x:.2f}" for x in times), flush=True)


if __name__ == "__main__":
    main()
