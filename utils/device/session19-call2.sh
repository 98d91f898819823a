#!/usr/bin/env bash
# Nineteenth session, second GPU-machine call (2026-11-28): GPT-2's
# remaining training graph breaks (after the constant_pad_nd fix), and
# the max-pool backward on the GPU as the CPU's scatter-add (atomic adds)
# against the gather it runs now. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 4 --modes tgc --breaks 2>&1 \
  | grep -v -i warn | tail -8
timeout 200 python3 - <<'PY'
import time
import torch
import torch.nn.functional as F
import tgc
import tgc._ops.pooling as pooling

def bwd(g, x, i):
    return torch.ops.aten.max_pool2d_with_indices_backward(
        g, x, [3, 3], [2, 2], [1, 1], [1, 1], False, i)

for n in (8, 64):
    x = torch.relu(torch.randn(n, 64, 112, 112, device="cuda"))
    v, i = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    g = torch.randn_like(v)
    want = bwd(g, x, i)
    rows = {}
    for how in ("gather", "scatter"):
        if how == "scatter":
            pooling.SCATTER_BACKWARD_DEVICES.add("cuda")
        c = tgc.compile(bwd)
        got = c(g, x, i)
        err = (got - want).abs().max().item()
        for _ in range(3):
            c(g, x, i)
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(50):
            c(g, x, i)
        torch.cuda.synchronize()
        rows[how] = ((time.perf_counter() - t) / 50 * 1e3, err)
    pooling.SCATTER_BACKWARD_DEVICES.discard("cuda")
    t = time.perf_counter()
    for _ in range(50):
        bwd(g, x, i)
    torch.cuda.synchronize()
    e = (time.perf_counter() - t) / 50 * 1e3
    print(f"batch {n}: eager {e:.3f} ms; " + "; ".join(
        f"{k} {ms:.3f} ms (max err {err:.2e})" for k, (ms, err) in rows.items()))
PY
