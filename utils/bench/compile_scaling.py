#!/usr/bin/python3
"""Compile time against graph size: it must grow about linearly.

Generates graphs of N ops in four shapes and compiles each through the CPU
and GPU pipelines, timing

  - `tgc-opt --tgc-cpu-pipeline` / `--tgc-gpu-pipeline` (MLIR passes only),
  - `tgc-run --json` (CPU: MLIR + LLVM JIT) and `tgc-run --device cuda
    --compile-only --json` (GPU: MLIR + NVPTX + ptxas), with --full,

and prints milliseconds per op for each N. "Flat" per-op times mean a linear
compiler; a column that grows with N names a superlinear pass (run the
command printed with --mlir-timing to find it).

Shapes:
  chain    unary elementwise ops with a softmax every 7 (a few big kernels)
  blocks   transformer-like blocks: linear, gelu, residual add, layer norm,
           a softmax over the rows (many kernels and GEMMs)
  concat   one concat of N inputs (the inputs are the ops)
  fanout   N branches from one input (slice, exp, sum), summed pairwise

  utils/bench/compile_scaling.py [--sizes 100,300,1000,3000,10000]
      [--shapes chain,blocks,concat,fanout] [--full] [--timeout 600]
      [--json out.json]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def chain(n):
    lines = ["func.func @f(%a: tensor<?x64xf32>) -> tensor<?x64xf32> {"]
    prev, ops = "%a", 0
    while ops < n:
        op = ["tgc.exp", "tgc.neg", "tgc.tanh", "tgc.sigmoid"][ops % 4]
        lines.append(f"  %v{ops} = {op} {prev} : tensor<?x64xf32>")
        prev = f"%v{ops}"
        ops += 1
        if ops % 7 == 0 and ops < n:
            lines.append(f"  %v{ops} = tgc.softmax {prev} dim = 1 : tensor<?x64xf32>")
            prev = f"%v{ops}"
            ops += 1
    lines += [f"  return {prev} : tensor<?x64xf32>", "}"]
    return "\n".join(lines) + "\n", ["--shape", "0=8x64"]


def blocks(n):
    d = 64
    t = f"tensor<?x{d}xf32>"
    nblocks = max(1, n // 5)
    args = ["%x: " + t]
    for b in range(nblocks):
        args += [f"%w{b}: tensor<{d}x{d}xf32>", f"%b{b}: tensor<{d}xf32>",
                 f"%g{b}: tensor<{d}xf32>"]
    lines = [f"func.func @f({', '.join(args)}) -> {t} {{"]
    prev = "%x"
    for b in range(nblocks):
        lines += [
            f"  %h{b} = tgc.linear {prev}, %w{b}, %b{b} : {t}, tensor<{d}x{d}xf32>, tensor<{d}xf32> -> {t}",
            f"  %a{b} = tgc.gelu %h{b} : {t}",
            f"  %r{b} = tgc.add %a{b}, {prev} : {t}, {t} -> {t}",
            f"  %n{b} = tgc.layer_norm %r{b} weight(%g{b} : tensor<{d}xf32>) normalized_rank = 1 eps = 1.0e-05 : {t}",
            f"  %s{b} = tgc.softmax %n{b} dim = 1 : {t}",
        ]
        prev = f"%s{b}"
    lines += [f"  return {prev} : {t}", "}"]
    return "\n".join(lines) + "\n", ["--shape", "0=8x64"]


def concat(n):
    t = "tensor<?x4xf32>"
    args = ", ".join(f"%a{i}: {t}" for i in range(n))
    names = ", ".join(f"%a{i}" for i in range(n))
    types = ", ".join([t] * n)
    text = (f"func.func @f({args}) -> {t} {{\n"
            f"  %c = tgc.concat {names} dim = 0 : ({types}) -> {t}\n"
            f"  return %c : {t}\n}}\n")
    return text, [x for i in range(n) for x in ("--shape", f"{i}=2x4")]


def fanout(n):
    branches = max(2, n // 4)
    t = "tensor<?x256xf32>"
    lines = [f"func.func @f(%a: {t}) -> tensor<?xf32> {{"]
    sums = []
    for i in range(branches):
        lines += [
            f"  %s{i} = tgc.slice %a dim = 1 start = {i % 200} end = {i % 200 + 32} step = 1 : {t} -> tensor<?x32xf32>",
            f"  %e{i} = tgc.exp %s{i} : tensor<?x32xf32>",
            f"  %r{i} = tgc.sum %e{i} dims [1] : tensor<?x32xf32> -> tensor<?xf32>",
        ]
        sums.append(f"%r{i}")
    k = 0
    while len(sums) > 1:
        a, b = sums.pop(0), sums.pop(0)
        lines.append(f"  %t{k} = tgc.add {a}, {b} : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>")
        sums.append(f"%t{k}")
        k += 1
    lines += [f"  return {sums[0]} : tensor<?xf32>", "}"]
    return "\n".join(lines) + "\n", ["--shape", "0=8x256"]


SHAPES = {"chain": chain, "blocks": blocks, "concat": concat, "fanout": fanout}


def count_ops(text):
    """tgc ops, and a concat's inputs (each one a copy)."""
    ops = sum(1 for line in text.splitlines() if " = tgc." in line)
    for line in text.splitlines():
        if "tgc.concat" in line:
            ops += line.split(" dim =")[0].count("%") - 2
    return ops


def timed(cmd, timeout):
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout ({timeout} s)"
    ms = (time.perf_counter() - start) * 1e3
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip().splitlines()[-1:]
    return ms, p.stdout.decode(errors="replace")


def json_field(text, key):
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(f'"{key}":'):
            return float(line.split(":", 1)[1].strip().rstrip(","))
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,300,1000,3000,10000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--full", action="store_true",
                        help="also time tgc-run (LLVM JIT / NVPTX + ptxas)")
    parser.add_argument("--tgc-opt", default=os.path.join(ROOT, "build", "bin", "tgc-opt"))
    parser.add_argument("--tgc-run", default=os.path.join(ROOT, "build", "bin", "tgc-run"))
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    columns = ["cpu-mlir", "gpu-mlir"] + (["cpu-jit", "gpu-cubin"] if args.full else [])
    print(f"{'shape':8} {'ops':>6}  " + "  ".join(f"{c + ' ms/op':>16}" for c in columns))
    with tempfile.TemporaryDirectory(prefix="compile-scaling-") as work:
        for shape in args.shapes.split(","):
            for n in sizes:
                text, shape_opts = SHAPES[shape](n)
                ops = count_ops(text)
                path = os.path.join(work, f"{shape}-{n}.mlir")
                with open(path, "w") as f:
                    f.write(text)
                row = {"shape": shape, "ops": ops}
                for col, cmd in [
                    ("cpu-mlir", [args.tgc_opt, path, "--tgc-cpu-pipeline", "-o", "/dev/null"]),
                    ("gpu-mlir", [args.tgc_opt, path, "--tgc-gpu-pipeline", "-o", "/dev/null"]),
                ]:
                    ms, _ = timed(cmd, args.timeout)
                    row[col] = ms
                if args.full:
                    for col, extra in [("cpu-jit", []),
                                       ("gpu-cubin", ["--device", "cuda", "--compile-only"])]:
                        ms, out = timed([args.tgc_run, path, "--json"] + shape_opts + extra,
                                        args.timeout)
                        row[col] = json_field(out, "compile_ms") if ms is not None else None
                rows.append(row)
                cells = []
                for c in columns:
                    v = row.get(c)
                    cells.append(f"{v / ops:16.2f}" if v else f"{'failed':>16}")
                print(f"{shape:8} {ops:6d}  " + "  ".join(cells), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
