#!/usr/bin/env python3
"""Row kernels over long rows (a language model's vocabulary): softmax,
log-softmax and a softmax backward over 4096 rows of 50257 and 32000 f32,
and rows of 8192 and 1024, from Python with CUDA-event time over
back-to-back calls, against eager (docs/gpu-pipeline.md, "rows").

    python3 utils/bench/long_rows.py [--options "long-row-block-size=0" ...]

Each --options string is one more compiled column (the default compile is
always the first): "long-row-block-size=0" is TGC before long rows took
1024 threads (128 for every row). Also prints each column's largest
difference from eager.
"""

import argparse
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402

import tgc  # noqa: E402
from gpu_bench import device_time  # noqa: E402 (this folder's)


def timeit(f, *a):
    return device_time(torch, f, a, 20)


CASES = [("log_softmax", lambda x: torch.log_softmax(x, -1)),
         ("softmax", lambda x: torch.softmax(x, -1)),
         ("softmax_bwd", lambda g, y: y * (g - (g * y).sum(-1, keepdim=True)))]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--options", action="append", default=[],
                   help="compile options of one more column")
    a = p.parse_args()
    torch.manual_seed(0)
    columns = [""] + a.options
    print(f"# {torch.cuda.get_device_name()}, ms per call; columns: eager, "
          + ", ".join(c or "default" for c in columns))
    for rows, cols in ((4096, 50257), (4096, 32000), (4096, 8192), (32768, 1024)):
        x = torch.randn(rows, cols, device="cuda")
        g = torch.randn(rows, cols, device="cuda")
        for name, f in CASES:
            args = (x,) if name != "softmax_bwd" else (g, torch.softmax(x, -1))
            ref = f(*args)
            line = f"{rows}x{cols} {name:12s} eager {timeit(f, *args):.3f}"
            for opts in columns:
                c = tgc.compile(f, options=opts)
                err = (c(*args) - ref).abs().max().item()
                line += f" | {opts or 'default'}: {timeit(c, *args):.3f} ({err:.0e})"
            print(line, flush=True)
            del ref


if __name__ == "__main__":
    main()
