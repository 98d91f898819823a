#!/usr/bin/env python3
"""Optimizer-step benchmark: AdamW's step over a model's parameters, alone,
in one process: PyTorch's default step (foreach on CUDA), PyTorch's fused
step (AdamW(fused=True), CUDA), torch.compile(opt.step) (Inductor, where
PyTorch has it) and tgc.compile(opt.step) (CUDA graphs by default, and
mode="default" without them) (docs/training.md, "The optimizer step").

    python3 utils/bench/optimizer.py [--device cuda] [--models gpt2,resnet18]
                                     [--modes eager,fused,inductor,tgc,tgc-default]
                                     [--steps 50]

Per model and mode: the first step (compiles included), then the median
of `steps` steps of: wall time of one step with a device synchronization,
and the host time of the call alone (no synchronization: what the host
spends issuing it), and the device time per step of back-to-back steps
(CUDA events). GB/s counts the 7 tensor passes an AdamW step needs per
parameter element (read parameter, gradient, two moments; write the
parameter and the moments) over the back-to-back time. After the steps,
the parameters of each mode are compared with eager's (all modes start
from the same parameters and gradients).
"""

import argparse
import os
import statistics
import sys
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402

import tgc  # noqa: E402


def _params(name, device):
    torch.manual_seed(0)
    if name == "gpt2":
        try:
            from transformers import GPT2Config, GPT2LMHeadModel

            model = GPT2LMHeadModel(GPT2Config())
        except ImportError:  # GPT-2 small's parameter shapes
            shapes = [(50257, 768), (1024, 768)]
            for _ in range(12):
                shapes += [(768,), (768,), (768, 2304), (2304,), (768, 768), (768,), (768,),
                           (768,), (768, 3072), (3072,), (3072, 768), (768,)]
            shapes += [(768,), (768,)]
            return [torch.nn.Parameter(torch.randn(s, device=device) * 0.02) for s in shapes]
    elif name == "resnet18":
        import torchvision

        model = torchvision.models.resnet18()
    else:
        raise SystemExit(f"unknown model {name}")
    return [p for p in model.to(device).parameters()]


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def run(name, modes, device, steps):
    base = _params(name, device)
    count = sum(p.numel() for p in base)
    grads = [torch.randn_like(p) * 1e-2 for p in base]
    print(f"{name}: {len(base)} parameters, {count / 1e6:.1f} M elements", flush=True)
    finals = {}
    for mode in modes:
        params = [torch.nn.Parameter(p.detach().clone()) for p in base]
        for p, g in zip(params, grads):
            p.grad = g.clone()
        fused = {"fused": True} if mode == "fused" else {}
        opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.1, **fused)
        if mode == "inductor":
            step = torch.compile(opt.step)
        elif mode == "tgc":
            step = tgc.compile(opt.step)
        elif mode == "tgc-default":
            step = tgc.compile(opt.step, mode="default")
        else:
            step = opt.step
        _sync(device)
        t0 = time.perf_counter()
        step()
        _sync(device)
        first = (time.perf_counter() - t0) * 1000
        walls, hosts = [], []
        for _ in range(steps):
            _sync(device)
            t0 = time.perf_counter()
            step()
            t1 = time.perf_counter()
            _sync(device)
            t2 = time.perf_counter()
            hosts.append((t1 - t0) * 1000)
            walls.append((t2 - t0) * 1000)
        back = float("nan")
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(steps):
                step()
            end.record()
            torch.cuda.synchronize()
            back = start.elapsed_time(end) / steps
        finals[mode] = [p.detach() for p in params]
        rate = 7 * count * params[0].element_size() / (back * 1e-3) / 1e9 if back == back else 0
        print(f"{name:9s} {mode:12s} first {first:9.1f} ms  step {statistics.median(walls):7.3f} ms"
              f"  host {statistics.median(hosts):7.3f} ms  back-to-back {back:7.3f} ms"
              f" ({rate:.0f} GB/s)", flush=True)
    if "eager" in finals:
        for mode, ps in finals.items():
            if mode != "eager":
                err = max((a - b).abs().max().item() for a, b in zip(ps, finals["eager"]))
                print(f"{name:9s} {mode:12s} largest difference from eager after "
                      f"{2 * steps + 1} steps: {err:.2e}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--models", default="gpt2,resnet18")
    p.add_argument("--modes", default="eager,fused,inductor,tgc,tgc-default")
    p.add_argument("--steps", type=int, default=50)
    a = p.parse_args()
    modes = [m for m in a.modes.split(",") if m]
    if a.device != "cuda":
        modes = [m for m in modes if m != "fused"]
    if not hasattr(torch, "compile"):
        modes = [m for m in modes if m != "inductor"]
    print(f"# {torch.cuda.get_device_name() if a.device == 'cuda' else 'cpu'}, "
          f"PyTorch {torch.__version__}, AdamW(lr=1e-4, weight_decay=0.1)", flush=True)
    for name in a.models.split(","):
        run(name, modes, a.device, a.steps)


if __name__ == "__main__":
    main()
