#!/usr/bin/env python3
"""Vision inference on the GPU: torchvision models (random weights, eval
mode) with tgc.compile next to eager PyTorch and torch.compile (Inductor),
in one process, under PyTorch's TF32 flags (docs/python.md, "TF32").

    python3 utils/bench/vision_inference.py [--models resnet18,resnet50]
        [--batch 32] [--size 224] [--tf32 default|on|off]
        [--modes eager,inductor,tgc] (also inductor-ro, tgc-ro: reduce-overhead, CUDA graphs)

For each model and mode: the first call (compile included, s), the time
per call of back-to-back calls (CUDA events over at least 20 calls and
100 ms, best of three), images per second and the ratio to eager (>1:
faster than eager), and the largest difference from eager's output
relative to its largest magnitude.
"""

import argparse
import time

import torch
import torchvision

import tgc


def per_call_ms(fn, x, reps=3):
    best = float("inf")
    for _ in range(reps):
        n, start, end = 0, torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        t0 = time.perf_counter()
        while n < 20 or time.perf_counter() - t0 < 0.1:
            fn(x)
            n += 1
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / n)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="resnet18,resnet50")
    p.add_argument("--modes", default="eager,inductor,tgc")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--tf32", choices=("default", "on", "off"), default="default")
    a = p.parse_args()
    if a.tf32 != "default":
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = a.tf32 == "on"
    print(f"# {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, batch {a.batch}, "
          f"{a.size}^2 f32, TF32 matmul {torch.backends.cuda.matmul.allow_tf32} "
          f"conv {torch.backends.cudnn.allow_tf32}", flush=True)
    for name in a.models.split(","):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).cuda().eval()
        x = torch.randn(a.batch, 3, a.size, a.size, device="cuda")
        with torch.no_grad():
            want = model(x)
            eager_ms = None
            for mode in a.modes.split(","):
                if mode.startswith("inductor") and not hasattr(torch, "compile"):
                    continue
                fn = {"eager": lambda: model, "inductor": lambda: torch.compile(model),
                      "inductor-ro": lambda: torch.compile(model, mode="reduce-overhead"),
                      "tgc": lambda: tgc.compile(model),
                      "tgc-ro": lambda: tgc.compile(model, mode="reduce-overhead")}[mode]()
                t0 = time.perf_counter()
                got = fn(x)
                torch.cuda.synchronize()
                first = time.perf_counter() - t0
                err = float((got - want).abs().max() / want.abs().max())
                ms = per_call_ms(fn, x)
                eager_ms = ms if mode == "eager" else eager_ms
                ratio = f"{eager_ms / ms:5.2f}x" if eager_ms else "     -"
                print(f"{name:12s} {mode:9s} first {first:7.2f} s  {ms:8.3f} ms/call  "
                      f"{a.batch / ms * 1e3:8.0f} img/s  {ratio}  rel.err {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
