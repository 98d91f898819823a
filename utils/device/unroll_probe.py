#!/usr/bin/env python3
"""How many 16-byte chunks a thread of an elementwise kernel should take per
iteration (the flat kernels' unroll, TGC_EXP_UNROLL in an experimental
bundle): device time of light and transcendental-heavy bodies against eager,
and the ptxas time of each compile. Run on the GPU machine:

    PYTHONPATH=.python-bundle python3 utils/device/unroll_probe.py
"""
import os
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

os.environ["TGC_CACHE"] = "0"
import tgc  # noqa: E402

CASES = {
    "x*2+1": lambda x: x * 2 + 1,
    "gelu erf": lambda x: F.gelu(x),
    "gelu tanh": lambda x: 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * torch.pow(x, 3.0)))),
    "silu*x": lambda x: F.silu(x) * x,
}


def device_ms(fn, x, reps=50):
    for _ in range(3):
        fn(x)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn(x)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


for shape in ((8192, 8192), (4096, 1024), (768, 3072)):
    x = torch.randn(*shape, device="cuda")
    for name, fn in CASES.items():
        row = [f"{str(shape):14s} {name:10s} eager {device_ms(fn, x) * 1e3:8.1f} us"]
        for unroll in ("4", "2", "1"):
            os.environ["TGC_EXP_UNROLL"] = unroll
            c = tgc.compile(fn)
            with torch.no_grad():
                got = c(x)
            torch.testing.assert_close(got, fn(x), rtol=1e-4, atol=1e-4)
            phases = dict(p for s in tgc.explain(c).specializations for p in s.phases)
            row.append(f"u{unroll} {device_ms(c, x) * 1e3:8.1f} us (ptxas {phases.get('ptxas', 0):5.1f})")
        print("  ".join(row), flush=True)
