#!/usr/bin/env python3
"""Differential fuzzing of the CPU compiler against the reference interpreter.

Generates seeded random, well-typed `tgc` functions (elementwise unary and
binary ops with broadcasting, cmp/where/logical ops, clamp, reductions,
argmax/max/topk, softmax/log_softmax/layer_norm/rms_norm, attention,
conv2d and pooling, reshape/permute/slice/concat/expand/(un)squeeze/pad,
gather/index_select/embedding, matmul/linear/bmm, integer chains,
f32/f64/f16/integer conversions, write_out), with static and `?` sizes,
and runs each through

    tgc-run FILE --check reference [--shape ...|--calls ... --calls ...]

which compiles the function for the CPU, runs it on seeded random inputs
and compares the results with the reference interpreter. Failures are
classified (mismatch, compile/run error, crash/signal, timeout, invalid
graph) and, with --keep-failures DIR, written out as graph-SEED.mlir,
graph-SEED.sh (the command that reproduces it) and graph-SEED.log.

Values are kept numerically tame so that tgc-run's default tolerances are
meaningful: every value has a bound on |x| (at most 4, rescaled by exact
powers of two when an op would exceed it); log/sqrt/rsqrt/reciprocal/div/pow
only see `|x| + c` with c >= 0.5; discontinuous ops (floor, ceil, round,
remainder, cmp, argmax, max/min indices, float -> int) only see values that
are bit-exact on both sides (arguments and exact ops on them); f64 only
starts from exact values; f16 only appears at the end of a graph, as a
result. Tolerances are never changed.

Usage: fuzz-graphs.py [--count N] [--seed S] [--time-budget SECONDS]
                      [--tgc-run PATH] [--jobs J] [--keep-failures DIR]
                      [--timeout SECONDS] [-v]
       fuzz-graphs.py --print SEED      (the graph and options of one seed)
Graph i of a run uses seed S + i. Exit status 1 when any graph failed.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from fuzz_ir import *  # noqa: F401,F403 (the generator's IR model)
from fuzz_ops import *  # noqa: F401,F403 (one generator per op kind)


def random_op(g, rng, base_dtype, ops):
    kind = rng.choices(OP_KINDS, weights=OP_WEIGHTS)[0]
    v = GEN[kind](g, base_dtype)
    if v is not None:
        v = g.add(g.tame(v))
    ops.append(kind)
    return v


def model_blocks(g, rng, base_dtype, ops):
    """A whole model's shape: a stream [B, S, D] through 100-500 ops of
    repeated blocks. Each block draws its ops from the stream and its own
    values (views, reductions, contractions, ...), ends with a residual add
    into the stream when a value has the stream's shape, and sometimes
    writes a value into an out buffer (an in-place update of the caller's
    tensor)."""
    d = S(rng.choice([8, 16, 24, 32]))
    dims = [g.random_dim(0.6), g.random_dim(0.6), d]
    for i in (0, 1):  # small enough for the interpreter, batch first
        if g.max_numel(dims) > g.max_elems // 4:
            dims[i] = S(rng.choice([1, 2, 3]))
    x = g.add(g.add_arg(base_dtype, dims))
    target = rng.randint(100, 500)
    blocks = 0
    # A bound on the blocks: some draws emit nothing (an op that does not
    # fit the values at hand).
    while g.next_id < target and blocks < 4 * target:
        blocks += 1
        earlier = g.values
        g.values = [v for v in earlier if v is not x] + [x]
        start = len(g.values)
        for _ in range(rng.randint(4, 16)):
            random_op(g, rng, base_dtype, ops)
        fresh = g.values[start:]
        same = [v for v in fresh if v.dtype == x.dtype and v.rank == x.rank
                and all(a.same(b) for a, b in zip(v.dims, x.dims))]
        if same:
            y = rng.choice(same[-3:])
            x = g.add(g.tame(g.binary("add", x, y, x.dims,
                                      bound=x.bound + y.bound)))
            ops.append("residual")
        if fresh and rng.random() < 0.2:
            v = rng.choice(fresh)
            g.outs.append((v, g.add_arg(v.dtype, v.dims)))
            ops.append("write_out")
    ops.append(f"({blocks} blocks)")
    return x


def gen_graph(seed, ncalls=None, model=False):
    """Returns (mlir_text, shape-options list, description). With `model`,
    a graph of 100-500 ops shaped like a model (model_blocks)."""
    rng = random.Random(seed)
    if ncalls is None:
        ncalls = 2 if rng.random() < 0.35 else 1
    g = Graph(rng, ncalls, big=rng.random() < 0.25)
    base_dtype = "f64" if rng.random() < 0.15 else "f32"
    ops = []
    if model:
        model_blocks(g, rng, base_dtype, ops)
    else:
        # Arguments: 1-3 float inputs.
        nin = rng.randint(1, 3)
        for _ in range(nin):
            rank = rng.choice([1, 2, 2, 3, 3, 4])
            dims = [g.random_dim() for _ in range(rank)]
            while g.max_numel(dims) > g.max_elems:
                dims = dims[1:]
            g.add(g.add_arg(base_dtype, dims))
        for _ in range(rng.randint(2, 12)):
            random_op(g, rng, base_dtype, ops)

    # f16 tail: some results computed in f16 (one or two ops).
    if rng.random() < 0.15:
        x = g.pick(lambda v: v.bound <= BOUND, "f32") or \
            g.pick(lambda v: v.bound <= BOUND, base_dtype)
        if x is not None and x.dtype == "f32":
            h = g.op(f"tgc.convert {x.name} : {x.type()} -> "
                     f"{tensor_type(x.dims, 'f16')}", "f16", x.dims)
            for _ in range(rng.randint(1, 2)):
                o = rng.choice(["tanh", "sigmoid", "relu", "neg", "abs",
                                "exp", "sin", "mul", "add"])
                if o in ("mul", "add"):
                    h = g.binary(o, h, h, h.dims)
                else:
                    h = g.unary(o, h)
            g.f16_results.append(h)
            ops.append("f16")

    # Results: the last value plus some values nothing else uses (so that
    # little of the graph is dead), and the f16 and integer results.
    body = "\n".join(g.lines)

    def unused(v):
        return len(re.findall(re.escape(v.name) + r"(?![\w#])", body)) <= 1

    def returnable(v, taken):
        if DUPLICATE_RESULT_BUG and v.name in taken:
            return False
        if not RETURN_ALIAS_BUG:
            return True
        return v.base == v.name and not v.name.startswith("%a")

    results = []
    if g.values and returnable(g.values[-1], set()):
        results.append(g.values[-1])
    others = [v for v in g.values[:-1] if unused(v)]
    rng.shuffle(others)
    for v in others[:rng.randint(2, 6)]:
        if returnable(v, {r.name for r in results}):
            results.append(v)
    for v in g.f16_results + g.int_results + g.wide_results:
        if v.name not in {r.name for r in results}:
            results.append(v)
    # Out buffers: write a result into an argument.
    outs = list(g.outs)
    results = [r for r in results if r.name not in {v.name for v, _ in outs}]
    if results and rng.random() < 0.15:
        v = results.pop(rng.randrange(len(results)))
        outs.append((v, g.add_arg(v.dtype, v.dims)))
    if not results and not outs:
        x = g.values[-1]
        results = [g.unary("neg", x)]
    for v, o in outs:
        g.emit(f"tgc.write_out {v.name} into {o.name} : {v.type()} into "
               f"{o.type()}")

    sig = []
    for v, attrs in g.args:
        sig.append(f"{v.name}: {v.type()}" + (f" {attrs}" if attrs else ""))
    rtypes = ", ".join(r.type() for r in results)
    head = f"func.func @fuzz({', '.join(sig)})"
    if results:
        head += f" -> ({rtypes})" if len(results) > 1 else f" -> {rtypes}"
    text = (f"// fuzz-graphs seed {seed}: {' '.join(ops)}\n" + head + " {\n"
            + "\n".join(g.lines) + "\n")
    if results:
        text += ("  return " + ", ".join(r.name for r in results) + " : " +
                 rtypes + "\n")
    else:
        text += "  return\n"
    text += "}\n"

    # Sizes of the `?` arguments, per call.
    def spec(call):
        parts = []
        for i, (v, _) in enumerate(g.args):
            if any(d.dynamic for d in v.dims):
                parts.append(f"{i}=" + "x".join(str(d.val(call))
                                                for d in v.dims))
        return parts

    opts = []
    if ncalls == 1:
        for p in spec(0):
            opts += ["--shape", p]
    elif spec(0):
        for c in range(ncalls):
            opts += ["--calls", ",".join(spec(c))]
    variant = rng.random()
    if variant < 0.1:
        opts.append("--no-fuse")
    elif variant < 0.2:
        opts += ["--policy", rng.choice(["static", "auto"])]
    return text, opts, " ".join(ops)


# -- running ------------------------------------------------------------------
def classify(rc, stderr):
    if rc is None:
        return "timeout"
    if rc < 0:
        return f"crash (signal {-rc}: {signal.Signals(-rc).name})"
    if rc == 1 and "mismatch" in stderr:
        return "mismatch"
    if rc == 2:
        if "reference interpreter failed" in stderr:
            return "reference error"
        if "cannot parse" in stderr:
            return "invalid graph (generator bug)"
        return "compile/run error"
    return f"exit {rc}"


def is_model_seed(seed, fraction):
    """Whether graph `seed` is model-shaped (--models FRACTION)."""
    return random.Random(seed * 31 + 7).random() < fraction


def run_one(index, seed, tgc_run, workdir, timeout, models=0.0):
    text, opts, desc = gen_graph(seed, model=is_model_seed(seed, models))
    path = os.path.join(workdir, f"graph-{seed}.mlir")
    with open(path, "w") as f:
        f.write(text)
    cmd = [tgc_run, path, "--check", "reference", "--seed", str(seed % 1000),
           "--json"] + opts
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)
        rc, out, err = proc.returncode, proc.stdout.decode(errors="replace"), \
            proc.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        rc, out, err = None, "", f"timed out after {timeout} s"
    ok = rc == 0
    return dict(index=index, seed=seed, ok=ok, rc=rc, text=text, opts=opts,
                desc=desc, stderr=err, path=path,
                kind=None if ok else classify(rc, err), cmd=cmd)


def save_failure(res, keep_dir, tgc_run):
    os.makedirs(keep_dir, exist_ok=True)
    base = os.path.join(keep_dir, f"graph-{res['seed']}")
    with open(base + ".mlir", "w") as f:
        f.write(res["text"])
    cmd = [tgc_run, base + ".mlir"] + res["cmd"][2:]
    cmd = [c for c in cmd if c != "--json"]
    with open(base + ".sh", "w") as f:
        f.write("#!/bin/sh\n# " + res["kind"] + "\n" +
                " ".join(shlex.quote(c) for c in cmd) + "\n")
    with open(base + ".log", "w") as f:
        f.write(res["stderr"])
    return base


def run_seeds(args, start, report, task):
    """Runs `task(i)` (a function and its arguments) for i < args.count on
    args.jobs threads, calling `report` with each result as it finishes; no
    new one starts after args.time_budget seconds from `start`. Returns the
    results. fuzz-crash.py uses it too."""
    results = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        pending, i, stopped = set(), 0, False
        while i < args.count or pending:
            while (i < args.count and len(pending) < max(1, args.jobs)
                   and not stopped):
                if (args.time_budget is not None and
                        time.monotonic() - start > args.time_budget):
                    stopped = True
                    break
                fn, *fn_args = task(i)
                pending.add(ex.submit(fn, *fn_args))
                i += 1
            if not pending:
                break
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                res = fut.result()
                results.append(res)
                report(res)
            if stopped and not pending:
                break
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tgc-run", default="tgc-run")
    parser.add_argument("--seed", type=int, default=1,
                        help="first graph seed; graph i uses seed + i")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--time-budget", type=float, default=None,
                        help="stop starting new graphs after this many "
                             "seconds")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120,
                        help="per-graph limit in seconds")
    parser.add_argument("--keep-failures", default=None, metavar="DIR")
    parser.add_argument("--models", type=float, default=0.0, metavar="FRACTION",
                        help="fraction of the graphs that are model-shaped: "
                             "100-500 ops of repeated blocks with residuals, "
                             "views and out-buffer updates (1 = all)")
    parser.add_argument("--print", dest="print_seed", type=int, default=None,
                        help="print the graph and options of one seed; "
                             "run nothing")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    if args.print_seed is not None:
        text, opts, _ = gen_graph(args.print_seed,
                                  model=is_model_seed(args.print_seed, args.models))
        sys.stdout.write(text)
        print("// options: " + " ".join(opts))
        return 0

    tgc_run = shutil.which(args.tgc_run) or args.tgc_run
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-graphs-") as workdir:
        def report(res):
            if args.verbose:
                print(f"seed {res['seed']}: "
                      f"{'ok' if res['ok'] else res['kind']} "
                      f"[{res['desc']}]", flush=True)
            if not res["ok"]:
                where = ""
                if args.keep_failures:
                    where = " -> " + save_failure(
                        res, args.keep_failures, tgc_run) + ".mlir"
                lines = res["stderr"].strip().splitlines()
                print(f"FAIL seed {res['seed']}: {res['kind']}{where}"
                      f"\n  ops: {res['desc']}\n  " +
                      "\n  ".join(lines[-6:]), flush=True)

        results = run_seeds(
            args, start, report,
            lambda i: (run_one, i, args.seed + i, tgc_run, workdir,
                       args.timeout, args.models))
    elapsed = time.monotonic() - start
    failed = [r for r in results if not r["ok"]]
    kinds = {}
    for r in failed:
        kinds.setdefault(r["kind"], []).append(r["seed"])
    print(f"{len(results)} graphs, {len(failed)} failures "
          f"({elapsed:.1f} s, seeds {args.seed}..{args.seed + len(results) - 1})")
    for k, seeds in sorted(kinds.items()):
        print(f"  {k}: {len(seeds)} (seeds {' '.join(map(str, sorted(seeds)[:20]))})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
