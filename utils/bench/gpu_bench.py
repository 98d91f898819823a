#!/usr/bin/env python3
"""GPU benchmark: TGC next to PyTorch eager and torch.compile, in one run.

Two halves, because the GPU machine has no LLVM:

  # here (compiler): kernels, launch plans and input shapes per case
  python3 utils/bench/gpu_bench.py compile --tgc-run build/bin/tgc-run --out .gpu-bench
  # on the GPU machine (runtime built from source, PyTorch installed)
  python3 utils/bench/gpu_bench.py run --cases .gpu-bench --tgc-gpu-run build-rt/tgc-gpu-run

For each case the run prints TGC's time (tgc-gpu-run: wall clock per call,
median, each call synchronized), PyTorch eager's and torch.compile's
(default and mode="reduce-overhead") timed the same way, and device times:
TGC's from CUDA events around each call's steps (median, in a second
tgc-gpu-run with --device-time), PyTorch's from
CUDA events over back-to-back calls (mean), each the median of --rounds
interleaved rounds (TGC, eager, Inductor, again); ratios are TGC's speedup (>1:
TGC faster); GB/s or TFLOP/s are TGC's from its device time, against the
copy bandwidth measured in the same run (a 1 GiB copy, and a copy moving
the case's own bytes, the fastest of three, which small cases cannot reach
the peak of either; a working set that fits in L2 lets that copy pass the
DRAM peak).
"""
import argparse
import json
import re
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GPU = os.path.join(HERE, "gpu")

# name, mlir file, tgc-run --calls, run flags, bytes moved, flops
CASES = [
    ("pointwise relu(x+y)*2 4096x4096 f32", "pointwise", "0=4096x4096,1=4096x4096",
     [], 3 * 4096 * 4096 * 4, 0),
    ("softmax 8192x1024 f32", "softmax", "0=8192x1024", [], 2 * 8192 * 1024 * 4, 0),
    ("layer_norm 8192x1024 f32", "layernorm", "0=8192x1024", [],
     2 * 8192 * 1024 * 4, 0),
    ("pointwise relu(x+y)*2 4096x4096 bf16", "pointwise_bf16",
     "0=4096x4096,1=4096x4096", [], 3 * 4096 * 4096 * 2, 0),
    ("softmax 8192x1024 bf16", "softmax_bf16", "0=8192x1024", [],
     2 * 8192 * 1024 * 2, 0),
    ("layer_norm 8192x1024 bf16", "layernorm_bf16", "0=8192x1024", [],
     2 * 8192 * 1024 * 2, 0),
    ("column sum x.sum(0) 8192x1024 f32", "colsum", "0=8192x1024", [],
     (8192 + 1) * 1024 * 4, 0),
    ("full sum x.sum() 4096x4096 f32", "fullsum", "0=4096x4096", [],
     4096 * 4096 * 4 + 4, 0),
    ("x W^T bf16 4096^3 (cuBLASLt alone)", "gemm", "0=4096x4096", [],
     3 * 4096 * 4096 * 2, 2 * 4096 ** 3),
    ("gelu(x W^T + b) bf16 4096^3", "gemm_gelu", "0=4096x4096", [],
     3 * 4096 * 4096 * 2, 2 * 4096 ** 3),
    ("gelu_tanh(x W^T + b) bf16 4096^3", "gemm_gelu_tanh", "0=4096x4096", [],
     3 * 4096 * 4096 * 2, 2 * 4096 ** 3),
    ("20 x (Linear(256,256)+ReLU) batch 8, CUDA graphs", "mlp20", "0=8x256",
     ["--cuda-graphs"], 0, 0),
    ("x + 1 on one element, CUDA graphs", "tiny", "", ["--cuda-graphs"], 0, 0),
    ("x + 1 on one element, no graphs", "tiny", "", [], 0, 0),
]


def compile_cases(args):
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    for i, (name, mlir, calls, flags, _, _) in enumerate(CASES):
        case = os.path.join(args.out, f"case{i}")
        cmd = [args.tgc_run, os.path.join(GPU, mlir + ".mlir"), "--device", "cuda",
               "--compile-only", "--save-case", case, "--json"]
        if calls:
            cmd += ["--calls", calls]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            sys.exit(f"compiling {name} failed:\n{out.stderr}")
        report = json.loads(out.stdout)
        manifest.append({"case": f"case{i}", "compile_ms": report["compile_ms"],
                         "kernels": report["kernels"], "gemms": report["gemms"]})
        print(f"{name}: compile {report['compile_ms']:.1f} ms, "
              f"{report['kernels']} kernel(s), {report['gemms']} GEMM(s)")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f)


def torch_cases(torch):
    F = torch.nn.functional
    dev = "cuda"

    def rand(*shape, dtype=torch.float32):
        return torch.rand(*shape, device=dev, dtype=dtype) * 2 - 1

    x, y = rand(4096, 4096), rand(4096, 4096)
    s = rand(8192, 1024)
    w, b = rand(1024), rand(1024)
    hx, hy, hs, hw, hb = (t.to(torch.bfloat16) for t in (x, y, s, w, b))
    gx, gw, gb = (rand(4096, 4096, dtype=torch.bfloat16),
                  rand(4096, 4096, dtype=torch.bfloat16),
                  rand(4096, dtype=torch.bfloat16))
    mlp = torch.nn.Sequential(*[m for _ in range(20)
                                for m in (torch.nn.Linear(256, 256), torch.nn.ReLU())]).to(dev)
    mx = rand(8, 256)
    t = rand(1)
    return [
        (lambda x, y: torch.relu(x + y) * 2, (x, y)),
        (lambda s: torch.softmax(s, dim=1), (s,)),
        (lambda s, w, b: F.layer_norm(s, (1024,), w, b, 1e-5), (s, w, b)),
        (lambda x, y: torch.relu(x + y) * 2, (hx, hy)),
        (lambda s: torch.softmax(s, dim=1), (hs,)),
        (lambda s, w, b: F.layer_norm(s, (1024,), w, b, 1e-5), (hs, hw, hb)),
        (lambda s: s.sum(0), (s,)),
        (lambda x: x.sum(), (x,)),
        (lambda x, w: F.linear(x, w), (gx, gw)),
        (lambda x, w, b: F.gelu(F.linear(x, w, b)), (gx, gw, gb)),
        (lambda x, w, b: F.gelu(F.linear(x, w, b), approximate="tanh"), (gx, gw, gb)),
        (lambda x: mlp(x), (mx,)),
        (lambda x: x + 1, (t,)),
        (lambda x: x + 1, (t,)),
    ]


def wall_per_call(torch, fn, args, iters):
    """Median wall time of one synchronized call, in ms."""
    for _ in range(5):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def device_time(torch, fn, args, iters):
    """Mean device time of back-to-back calls (CUDA events), in ms."""
    for _ in range(5):
        fn(*args)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(iters):
        fn(*args)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def run_cases(args):
    import torch
    manifest = json.load(open(os.path.join(args.cases, "manifest.json")))
    # Copy bandwidth (bytes read + written) on this device, this run.
    big = torch.empty(1 << 28, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(big)
    copy_ms = device_time(torch, lambda: dst.copy_(big), (), 20)
    copy_gbs = 2 * big.numel() * 4 / copy_ms / 1e6
    del big, dst
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"copy bandwidth {copy_gbs:.0f} GB/s")
    rows = []
    for (name, _, _, flags, nbytes, flops), m, (fn, targs) in zip(
            CASES, manifest, torch_cases(torch)):
        if args.filter and not re.search(args.filter, name):
            continue
        cmd = [args.tgc_gpu_run, os.path.join(args.cases, m["case"]), "--json",
               "--repeat", str(args.iters)] + flags
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            print(f"{name}: tgc-gpu-run failed:\n{out.stdout}{out.stderr}")
            continue
        report = json.loads(out.stdout)
        tgc = report["run_ms"]
        graphs = (f" [graphs: {report['graph_captures']} captured, "
                  f"{report['graph_replays']} replays{', ' + report['graph_fallback'] if report['graph_fallback'] else ''}]"
                  if "--cuda-graphs" in flags else "")
        eager = wall_per_call(torch, fn, targs, args.iters)
        compiled = torch.compile(fn)
        inductor = wall_per_call(torch, compiled, targs, args.iters)
        # Device times in interleaved rounds (TGC, eager, Inductor, again),
        # the median of each: a GPU at its power limit (large GEMMs) runs
        # slower the longer it has been busy, which would favour whoever is
        # measured first. TGC's comes from runs with --device-time, whose
        # event records add to wall time.
        tgc_devs, eager_devs, inductor_devs = [], [], []
        for _ in range(args.rounds):
            dev = subprocess.run(cmd + ["--device-time"], capture_output=True, text=True)
            if dev.returncode:
                print(f"{name}: tgc-gpu-run --device-time failed:\n{dev.stdout}{dev.stderr}")
                break
            tgc_devs.append(json.loads(dev.stdout)["device_ms"])
            eager_devs.append(device_time(torch, fn, targs, args.iters))
            inductor_devs.append(device_time(torch, compiled, targs, args.iters))
        if len(tgc_devs) < args.rounds:
            continue
        tgc_dev = statistics.median(tgc_devs)
        eager_dev = statistics.median(eager_devs)
        inductor_dev = statistics.median(inductor_devs)
        ro = torch.compile(fn, mode="reduce-overhead")
        reduce_overhead = wall_per_call(torch, ro, targs, args.iters)
        rate = ""
        if flops:
            rate = f"{flops / tgc_dev / 1e9:.0f} TFLOP/s"
        elif nbytes:
            gbs = nbytes / tgc_dev / 1e6
            src = torch.empty(nbytes // 8, dtype=torch.float32, device="cuda")
            dst = torch.empty_like(src)
            # The fastest of three: small copies vary with L2 residency and
            # clocks, and the fastest is the most demanding reference.
            same_ms = min(device_time(torch, lambda: dst.copy_(src), (), args.iters)
                          for _ in range(3))
            same_gbs = nbytes / same_ms / 1e6
            del src, dst
            rate = (f"{gbs:.0f} GB/s ({100 * gbs / copy_gbs:.0f}% of copy, "
                    f"{100 * gbs / same_gbs:.0f}% of a {same_ms * 1e3:.1f} us "
                    f"copy of the same bytes)")
        rows.append((name, m["compile_ms"], tgc, tgc_dev, eager, inductor,
                     reduce_overhead, eager_dev, inductor_dev, rate))
        print(f"{name}: TGC {tgc * 1e3:.1f} us (device {tgc_dev * 1e3:.1f}) | "
              f"eager {eager * 1e3:.1f} us "
              f"(device {eager_dev * 1e3:.1f}) | inductor {inductor * 1e3:.1f} us "
              f"(device {inductor_dev * 1e3:.1f}) | reduce-overhead "
              f"{reduce_overhead * 1e3:.1f} us | {rate}{graphs}", flush=True)
    print("\n| case | TGC compile ms | TGC us/call | eager us | x eager | "
          "inductor us | x inductor | reduce-overhead us | x r-o | "
          "TGC device us | eager device us | x eager | inductor device us | "
          "x inductor | TGC rate (device) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, cms, tgc, tdev, eager, ind, ro, edev, idev, rate) in rows:
        print(f"| {name} | {cms:.0f} | {tgc * 1e3:.1f} | {eager * 1e3:.1f} | "
              f"{eager / tgc:.2f} | {ind * 1e3:.1f} | {ind / tgc:.2f} | "
              f"{ro * 1e3:.1f} | {ro / tgc:.2f} | {tdev * 1e3:.1f} | "
              f"{edev * 1e3:.1f} | {edev / tdev:.2f} | {idev * 1e3:.1f} | "
              f"{idev / tdev:.2f} | {rate} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("compile")
    c.add_argument("--tgc-run", required=True)
    c.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("--cases", required=True)
    r.add_argument("--tgc-gpu-run", required=True)
    r.add_argument("--iters", type=int, default=200)
    r.add_argument("--filter", help="regex on the case names: run only these")
    r.add_argument("--rounds", type=int, default=3,
                   help="interleaved rounds of device timing (median of each)")
    args = ap.parse_args()
    (compile_cases if args.mode == "compile" else run_cases)(args)


if __name__ == "__main__":
    main()
