"""Where the host time of tgc.compile(opt.step)'s native call goes on the
GPU (device probe for issue 21): AdamW over 148 parameters (74 Linear
256x256), the phase profile of 30 steps. python3 utils/device/optim_phases.py"""
import time

import torch

import tgc
from tgc import _native_path

torch.manual_seed(0)
m = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(74)]).cuda()
opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
for p in m.parameters():
    p.grad = torch.randn_like(p)
step = tgc.compile(opt.step)
for _ in range(3):
    step()
torch.cuda.synchronize()
for label in ("phases", "plain"):
    if label == "phases":
        with _native_path.phase_profile() as ph:
            t0 = time.perf_counter()
            for _ in range(30):
                step()
            t1 = time.perf_counter()
    else:
        t0 = time.perf_counter()
        for _ in range(30):
            step()
        t1 = time.perf_counter()
    torch.cuda.synchronize()
    print(label, f"{(t1 - t0) / 30 * 1e3:.3f} ms host per step")
print({k: round(v, 1) for k, v in ph.items()})
