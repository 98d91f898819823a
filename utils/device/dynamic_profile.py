#!/usr/bin/env python3
"""Where a dynamic training specialization's step spends its host time
against a static one's (dynamic_train.py's GPT-2: 4.1 against 3.4 ms per
step at batch 8 since the backward is one region): cProfile of 20 steps
each, top functions by own time, and the native calls' phases.
python3 utils/device/dynamic_profile.py [model]"""

import cProfile
import copy
import pstats
import sys

import torch

import tgc

import dynamic_train


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "gpt2"
    torch.backends.cuda.matmul.allow_tf32 = False
    model, data, loss_of = dynamic_train._model(name)
    model = model.cuda().train()
    b8 = tuple(x.cuda() for x in data(8))
    b6 = tuple(x.cuda() for x in data(6))
    for label, sizes in (("static", [b8]), ("dynamic", [b8, b6])):
        m = copy.deepcopy(model)
        c = tgc.compile(m)
        for b in sizes + [b8, b8]:
            loss_of(c, *b).backward()
        torch.cuda.synchronize()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(20):
            loss_of(c, *b8).backward()
        torch.cuda.synchronize()
        prof.disable()
        st = pstats.Stats(prof)
        print(f"== {label}: {st.total_tt * 1000 / 20:.2f} ms of host time per step")
        st.sort_stats("tottime").print_stats(14)
        # The native calls' phases (both graphs of a step): a difference in
        # "runtime" is the plan's size evaluation and launches, in "guards"
        # the compiled guards.
        from tgc import _native_path
        with _native_path.phase_profile() as ph:
            for _ in range(20):
                loss_of(c, *b8).backward()
            torch.cuda.synchronize()
        print(f"== {label}: native phases (us per call):",
              {k: round(v, 1) for k, v in ph.items()})


if __name__ == "__main__":
    main()
