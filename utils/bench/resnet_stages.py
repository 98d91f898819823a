#!/usr/bin/env python3
"""ResNet-18's stages one at a time on the CPU: `tgc.compile` of each
(stem, layer1..layer4) with its default options and with `--options`
(default: direct-convolutions=0), against eager, in one process; the
input of each stage is the previous stage's output. Shows which
convolutions a CPU change moves (docs/cpu-pipeline.md, "Direct
convolutions"). Best of 3 medians of `--repeat` calls each.

  PYTHONPATH=python utils/bench/resnet_stages.py [--size 112] [--batch 4]
      [--options direct-convolutions=0] [--repeat 15]
"""

import argparse
import os
import statistics
import sys
import time

import torch

try:
    import tgc
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
    import tgc


def median_ms(fn, x, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=int, default=112)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--options", default="direct-convolutions=0",
                   help="the other column's tgc.compile options")
    p.add_argument("--repeat", type=int, default=15)
    a = p.parse_args()
    import torchvision.models as tvm
    torch.manual_seed(0)
    torch.set_num_threads(os.cpu_count())
    m = tvm.resnet18().eval()
    stages = [("stem", torch.nn.Sequential(m.conv1, m.bn1, m.relu, m.maxpool)),
              ("layer1", m.layer1), ("layer2", m.layer2), ("layer3", m.layer3),
              ("layer4", m.layer4)]
    x = torch.randn(a.batch, 3, a.size, a.size)
    print(f"# ResNet-18 stages, {torch.get_num_threads()} threads, ms "
          f"(best of 3 medians of {a.repeat} calls)")
    print(f"{'stage':8} {'input':>18} {'tgc':>8} {a.options:>24} {'eager':>8}")
    with torch.no_grad():
        for name, stage in stages:
            out = stage(x)
            default, other = tgc.compile(stage), tgc.compile(stage, options=a.options)
            for fn in (default, other):
                err = (fn(x) - out).abs().max().item()
                if err > 1e-3 * (out.abs().max().item() or 1.0):
                    sys.exit(f"{name}: max abs error {err:.3g} against eager")
            best = [min(median_ms(fn, x, a.repeat) for _ in range(3))
                    for fn in (default, other, stage)]
            print(f"{name:8} {'x'.join(map(str, x.shape)):>18} {best[0]:8.2f} "
                  f"{best[1]:24.2f} {best[2]:8.2f}", flush=True)
            x = out


if __name__ == "__main__":
    main()
