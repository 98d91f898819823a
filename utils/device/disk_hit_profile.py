#!/usr/bin/env python3
"""Where a first call served by the disk cache spends its time (issue 22:
<= 30 ms per graph from disk). For each model: a cold process fills an empty
cache; a second process imports everything, then profiles (cProfile) its
first call and prints the explain phases, the top functions by cumulative
and by own time.

    utils/device/disk_hit_profile.py [--models hf-bert,tv-convnext-tiny] [--device cuda]
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r'''
import cProfile, io, os, pstats, sys, time, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.join(sys.argv[4], "utils", "zoo"))
import torch, tgc, tgc._ops, models
name, device, mode = sys.argv[1], sys.argv[2], sys.argv[3]
torch.manual_seed(0)
entry = models.ALL[name]
batch, seq = entry.sizes[0]
args, kwargs = entry.inputs(batch, seq, device)
model = entry.build().to(device).eval()
with torch.no_grad():
    model(*args, **kwargs)
if device == "cuda":
    torch.cuda.synchronize()
fn = tgc.compile(model)
prof = cProfile.Profile()
t = time.perf_counter()
with torch.no_grad():
    if mode == "disk":
        prof.enable()
    fn(*args, **kwargs)
    if device == "cuda":
        torch.cuda.synchronize()
    prof.disable()
ms = (time.perf_counter() - t) * 1e3
e = tgc.explain(fn)
print(f"{name} {mode}: first call {ms:.1f} ms (under cProfile when disk)")
for s in e.specializations:
    print("  phases:", ", ".join(f"{n} {t:.1f}" for n, t in s.phases))
    print("  disk:", s.disk_cache)
if mode == "disk":
    for key in ("cumulative", "tottime"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(25)
        print("\n".join(out.getvalue().splitlines()[6:34]))
'''


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", default="hf-bert,tv-convnext-tiny")
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    for name in a.models.split(","):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, TGC_CACHE_DIR=cache, TGC_CACHE="1")
            for mode in ("cold", "disk", "disk"):
                r = subprocess.run([sys.executable, "-c", CHILD, name, a.device, mode, ROOT],
                                   capture_output=True, text=True, env=env, timeout=600)
                print(r.stdout, end="")
                if r.returncode:
                    print(r.stderr[-2000:])
                    break


if __name__ == "__main__":
    main()
