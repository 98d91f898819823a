#!/usr/bin/env python3
"""Differential fuzzing of the GPU compiler against the reference
interpreter, on a machine with a GPU and TGC's Python package (or bundle),
without LLVM tools.

The graphs are fuzz-graphs.py's (same seeds; --models for the
model-shaped ones). For each graph and each call of it, the inputs are
drawn as tgc-run draws them (floats uniform in [-1, 1) or the argument's
`tgc.input_range`, integers in [0, 10), bools 50/50); the reference
interpreter computes the expected results through the C API
(tgc_reference_run), and the graph is compiled for CUDA through the C API
and run: in default mode, and with --cuda-graphs also through CUDA graphs,
replayed on fresh copies of the inputs. Results and out buffers are
compared at tgc-run's default tolerances (f64 1e-9/1e-12, f32 1e-4/1e-5,
f16 1e-2/1e-3, integers and bools exactly; NaN equals NaN).

    utils/fuzz-gpu.py [--count N] [--seed S] [--models FRACTION]
                      [--cuda-graphs] [--time-budget SECONDS] [--jobs J]
                      [--keep-failures DIR] [-v] [--seeds S1,S2,...]
                      [--options "fuse=0 vectorize=0 ..."]

A graph the GPU compiler reports as not supported on the GPU is counted
as such, not as a failure. Exit status 1 on any mismatch, crash or
internal error.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import re
import sys
import time
import traceback

from scriptload import load_script

HERE = os.path.dirname(os.path.abspath(__file__))


def _import_graphs():
    return load_script("fuzz-graphs.py")


TOLERANCES = {"f64": (1e-9, 1e-12), "f32": (1e-4, 1e-5), "f16": (1e-2, 1e-3),
              "bf16": (2e-2, 1e-2)}


def arguments(text):
    """[(dtype, static shape with None for `?`, (lo, hi) or None)] of the
    function's arguments."""
    head = text[text.index("func.func"):]
    head = head[head.index("(") + 1:]
    depth, cur, parts = 0, "", []
    for ch in head:
        if ch in "<{(":
            depth += 1
        if ch in ">})":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        m = re.search(r"tensor<((?:[\d?]+x)*)(\w+)>", p)
        dims = [None if d == "?" else int(d) for d in m.group(1).split("x")[:-1]]
        r = re.search(r"tgc.input_range = array<\w+: ([-\d.e]+), ([-\d.e]+)>", p)
        out.append((m.group(2), dims, (float(r.group(1)), float(r.group(2))) if r else None))
    return out


def call_shapes(opts, args):
    """The argument shapes of each call (static ones from the signature)."""
    if "--calls" in opts:
        specs = [opts[i + 1] for i, o in enumerate(opts) if o == "--calls"]
    else:
        specs = [",".join(opts[i + 1] for i, o in enumerate(opts) if o == "--shape")]
    calls = []
    for spec in specs:
        shapes = [list(dims) for _, dims, _ in args]
        for part in filter(None, spec.split(",")):
            arg, dims = part.split("=")
            shapes[int(arg)] = [int(d) for d in dims.split("x")] if dims else []
        calls.append(shapes)
    return calls


def make_inputs(args, shapes, gen):
    import torch

    dtypes = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
              "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32,
              "i8": torch.int8, "i1": torch.bool}
    out = []
    for (dtype, _, rng), shape in zip(args, shapes):
        dt = dtypes[dtype]
        if dtype == "i1":
            out.append(torch.rand(shape, generator=gen) < 0.5)
        elif dt.is_floating_point:
            lo, hi = rng or (-1.0, 1.0)
            out.append((torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo).to(dt))
        else:
            lo, hi = rng or (0, 10)
            lo, hi = math.ceil(lo), math.ceil(hi)
            out.append(torch.randint(lo, max(hi, lo + 1), shape, generator=gen, dtype=dt))
    return out


def mismatch(got, want):
    """None when equal within tgc-run's default tolerances, else a message."""
    import torch

    if got.shape != want.shape or got.dtype != want.dtype:
        return f"shape/dtype {tuple(got.shape)} {got.dtype} vs {tuple(want.shape)} {want.dtype}"
    name = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
            torch.bfloat16: "bf16"}.get(want.dtype)
    if name is None:
        return None if torch.equal(got, want) else "integer values differ"
    rtol, atol = TOLERANCES[name]
    g, w = got.double(), want.double()
    both_nan = torch.isnan(g) & torch.isnan(w)
    same_inf = torch.isinf(w) & (g == w)
    close = (g - w).abs() <= atol + rtol * w.abs()
    ok = both_nan | same_inf | close
    if bool(ok.all()):
        return None
    bad = (~ok).nonzero()[0].tolist()
    return f"{int((~ok).sum())} elements differ, first at {bad}: {g[tuple(bad)]} vs {w[tuple(bad)]}"


def run_graph(seed, models, cuda_graphs, device="cuda", extra=""):
    """(kind, message): kind is ok, unsupported, mismatch, error."""
    import torch
    from tgc import _capi

    graphs = _import_graphs()
    text, opts, desc = graphs.gen_graph(seed, model=graphs.is_model_seed(seed, models))
    sig = arguments(text)
    options = [f"device={device}"] + extra.split()
    if device == "cpu":
        libs = _capi.bundled_shared_libs()
        if libs:
            options.append("shared-libs=" + ":".join(libs))
    if "--no-fuse" in opts:
        options.append("fuse=0")
    if "--policy" in opts:
        options.append("policy=" + opts[opts.index("--policy") + 1])
    calls = call_shapes(opts, sig)
    gen = torch.Generator().manual_seed(seed)
    compiled = []  # (Compiled, graphs?) per specialization
    for c, shapes in enumerate(calls):
        inputs = make_inputs(sig, shapes, gen)
        ref_args = [t.clone() for t in inputs]
        try:
            want = _capi.reference_run(text, "fuzz", ref_args)
        except _capi.TgcError as e:
            return "reference error", str(e).splitlines()[-1][:200]
        for graphs_mode in ([False, True] if cuda_graphs else [False]):
            dev_args = [t.to(device) for t in inputs]
            call = _capi.Args(dev_args)
            spec = next((s for s, g in compiled if g == graphs_mode and s.check(call) == -1), None)
            if spec is None:
                example = " ".join("example=%d:%s" % (i, "x".join(map(str, s)))
                                   for i, s in enumerate(shapes) if s)
                opts_text = " ".join(options + (["cuda-graphs=1"] if graphs_mode else [])) + " " + example
                try:
                    spec = _capi.Compiled(text, "fuzz", opts_text)
                except _capi.TgcError as e:
                    msg = str(e)
                    if "not supported on the GPU" in msg:
                        return "unsupported", msg.strip().splitlines()[-1][:200]
                    return "error", "compile: " + msg.strip().splitlines()[-1][:300]
                if spec.check(call) != -1:
                    return "error", "the new specialization rejects its own call: " + \
                        spec.describe(spec.check(call), call)
                compiled.append((spec, graphs_mode))
            try:
                for _ in range(2 if graphs_mode else 1):  # capture, then replay
                    dev_args = [t.to(device) for t in inputs]
                    call = _capi.Args(dev_args)
                    got = spec.run(call, torch.device(device))
            except _capi.TgcError as e:
                return "error", "run: " + str(e).strip().splitlines()[-1][:300]
            what = f"call {c}{' (CUDA graph replay)' if graphs_mode else ''}"
            for i, (g, w) in enumerate(zip(got, want)):
                m = mismatch(g.cpu(), w)
                if m:
                    return "mismatch", f"{what}, result {i}: {m}"
            for i, (g, w) in enumerate(zip(dev_args, ref_args)):
                m = mismatch(g.cpu(), w)
                if m:
                    return "mismatch", f"{what}, argument {i} (out buffer): {m}"
    return "ok", desc


def worker(args):
    seed, models, cuda_graphs, device, extra = args
    try:
        return seed, run_graph(seed, models, cuda_graphs, device, extra)
    except Exception as e:  # noqa: BLE001
        return seed, ("error", f"{type(e).__name__}: {e} {traceback.format_exc()[-400:]}")


def worker_loop(tasks, results):
    """One worker process: runs the graphs it is given until told to stop."""
    while True:
        item = tasks.get()
        if item is None:
            return
        seed, (kind, msg) = worker(item)
        results.put((os.getpid(), seed, kind, msg))


def run_pool(seeds, args, report, start):
    """Runs the seeds on --jobs worker processes, one graph at a time each.
    A worker that dies (an assertion or a signal in the compiler or the
    driver) is a crash of the graph it was given, reported like any
    failure, and is replaced."""
    import queue

    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    cuda_graphs = args.cuda_graphs and args.device == "cuda"
    pending = list(reversed(seeds))
    workers = {}  # pid -> (process, its task queue, the seed it runs or None)

    def spawn():
        tasks = ctx.Queue()
        p = ctx.Process(target=worker_loop, args=(tasks, results), daemon=True)
        p.start()
        workers[p.pid] = [p, tasks, None]
        return p.pid

    def give(pid):
        if pending:
            seed = pending.pop()
            workers[pid][2] = seed
            workers[pid][1].put((seed, args.models, cuda_graphs, args.device, args.options))

    for _ in range(args.jobs):
        spawn()
    for pid in list(workers):
        give(pid)
    last_check = time.monotonic()
    while any(w[2] is not None for w in workers.values()):
        if args.time_budget and time.monotonic() - start > args.time_budget:
            break
        try:
            pid, seed, kind, text = results.get(timeout=1.0)
            if pid in workers and workers[pid][2] == seed:
                workers[pid][2] = None
                report(seed, kind, text)
                give(pid)
        except queue.Empty:
            pass
        if time.monotonic() - last_check < 1.0:
            continue
        last_check = time.monotonic()
        for pid, (p, _, seed) in list(workers.items()):
            if p.is_alive():
                continue
            del workers[pid]
            if seed is not None:
                code = p.exitcode
                why = f"signal {-code}" if code and code < 0 else f"exit code {code}"
                report(seed, "crash", f"the worker process died ({why})")
            give(spawn())
    for p, _, _ in workers.values():
        p.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--models", type=float, default=0.0)
    parser.add_argument("--cuda-graphs", action="store_true")
    parser.add_argument("--device", default="cuda",
                        help="cuda, or cpu (the same check of the CPU compiler "
                             "through the C API: a smoke test of this script)")
    parser.add_argument("--options", default="",
                        help="extra tgc_compile options (e.g. 'fuse=0 vectorize=0'), "
                             "to narrow a failure down")
    parser.add_argument("--seeds", default="",
                        help="comma-separated seeds to run instead of --seed/--count")
    parser.add_argument("--time-budget", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--keep-failures", default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    start = time.monotonic()
    counts, failures, done = {}, [], set()
    seeds = ([int(x) for x in args.seeds.split(",") if x] if args.seeds
             else [args.seed + i for i in range(args.count)])

    def report(seed, kind, msg):
        done.add(seed)
        counts[kind] = counts.get(kind, 0) + 1
        if args.verbose or kind not in ("ok", "unsupported"):
            print(f"seed {seed}: {kind}: {msg}", flush=True)
        if kind not in ("ok", "unsupported"):
            failures.append(seed)
            if args.keep_failures:
                os.makedirs(args.keep_failures, exist_ok=True)
                text, opts, _ = _import_graphs().gen_graph(
                    seed, model=_import_graphs().is_model_seed(seed, args.models))
                with open(os.path.join(args.keep_failures, f"graph-{seed}.mlir"), "w") as f:
                    f.write(text + "// options: " + " ".join(opts) + "\n// " + msg + "\n")

    run_pool(seeds, args, report, start)
    total = sum(counts.values())
    print(f"{total} graphs, {len(failures)} failures ({time.monotonic() - start:.1f} s; " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ")")
    if total < len(seeds):
        # A --time-budget stop leaves a few seeds unfinished; say where the
        # finished prefix ends so that the next run can go on from there.
        prefix = next((i for i, s in enumerate(seeds) if s not in done), len(seeds))
        print(f"finished {total} of {len(seeds)} seeds; every seed before "
              f"{seeds[prefix]} finished (the next run can start there)")
    if failures:
        print("failing seeds: " + " ".join(map(str, sorted(failures))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
