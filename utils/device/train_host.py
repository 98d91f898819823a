#!/usr/bin/env python3
"""Where the host time of a training step goes under tgc.compile (issue
21: the device idles before the forward's first kernel): the host time of
the forward call and of backward(), the native call's phases, and a
cProfile of the forward calls. The model is utils/bench/training.py's
(gpt2 by default, or resnet18).
python3 utils/device/train_host.py [gpt2|resnet18]"""

import cProfile
import os
import pstats
import sys
import time

import torch

import tgc
from tgc import _native_path

sys.path.insert(0, "utils/bench")
import training  # noqa: E402


def main():
    name = model_name = sys.argv[1] if len(sys.argv) > 1 else "gpt2"
    model, data, loss_of = training._model(name, "cuda", 0)
    model = model.cuda().train()
    data = tuple(d.cuda() for d in data)
    c = tgc.compile(model)
    for _ in range(3):
        loss_of(c, *data).backward()
    torch.cuda.synchronize()
    fw, bw = [], []
    for _ in range(10):
        t0 = time.perf_counter()
        loss = loss_of(c, *data)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        torch.cuda.synchronize()
        fw.append((t1 - t0) * 1e3)
        bw.append((t2 - t1) * 1e3)
    fw.sort()
    bw.sort()
    print(f"host: forward call {fw[5]:.2f} ms, backward() {bw[5]:.2f} ms (medians of 10)")
    with _native_path.phase_profile() as ph:
        for _ in range(10):
            loss = loss_of(c, *data)
            loss.backward()
            torch.cuda.synchronize()
    print("native phases (us per call):", {k: round(v, 1) for k, v in ph.items()})
    # The forward call alone (its host time before the first kernel is
    # what the device waits for at a step's start), and the lead itself:
    # from the call's start to its first kernel's start, on CUDA events.
    fwd = {}
    for _ in range(10):
        torch.cuda.synchronize()
        with _native_path.phase_profile() as ph:
            loss = loss_of(c, *data)
        for k, v in ph.items():
            fwd[k] = fwd.get(k, 0) + v / 10
        loss.backward()
        torch.cuda.synchronize()
    print("forward call's native phases (us):", {k: round(v, 1) for k, v in fwd.items()})
    leads = []
    for _ in range(10):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        start = torch.cuda.Event(enable_timing=True)
        start.record()
        loss = loss_of(c, *data)
        t1 = time.perf_counter()
        end = torch.cuda.Event(enable_timing=True)
        end.record()
        loss.backward()
        torch.cuda.synchronize()
        leads.append(((t1 - t0) * 1e3, start.elapsed_time(end)))
    leads.sort()
    print(f"forward: host {leads[5][0]:.2f} ms, device (events around it) {leads[5][1]:.2f} ms")
    # The forward call alone, after a synchronize: its host time, and the
    # CUDA API calls it makes (a synchronous one shows its wait).
    spec = c._training.specs[0]
    for name, fn in (("forward", spec.forward), ("backward", spec.backward)):
        steps = fn.specs[0].compiled.code("steps").splitlines()
        checks = [i for i, line in enumerate(steps) if line.startswith("check")]
        print(f"{name}: {len(steps)} steps, checks at {checks}")
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            loss = loss_of(c, *data)
            loss.backward()
            torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25))
    if os.environ.get("OUT"):
        prof.export_chrome_trace(os.path.join(os.environ["OUT"], f"train_host_{model_name}.json"))
    prof = cProfile.Profile()
    for _ in range(10):
        prof.enable()
        loss = loss_of(c, *data)
        prof.disable()
        loss.backward()
        torch.cuda.synchronize()
    pstats.Stats(prof).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
