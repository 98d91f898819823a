#!/usr/bin/env python3
"""Crash-only fuzzing of TGC's passes and tools.

The differential fuzzer (fuzz-graphs.py) checks answers on well-formed
graphs; this one only checks that nothing dies: every input must end with
a result or a diagnostic, never a signal (a crash, an assertion, an abort)
or a hang. Each case starts from a graph of fuzz-graphs.py (same seeds) and
is one of:

  pass     one TGC pass alone (every `Pass<"...">` of the TableGen files)
           on an IR snapshot taken after a random stage of the CPU or GPU
           pipeline (tgc-opt --mlir-print-ir-after=STAGE), plain or mutated
           at the token level;
  empty    tgc-run --check reference with one of the graph's dynamic sizes
           set to 0 (a clean error is fine; a mismatch fails);
  huge     tgc-run on the graph plus results of enormous static sizes
           (tgc.full, tgc.iota, a splat, an expand of 2^40 to 2^62 elements):
           a clean "cannot allocate" / compile error;
  name     tgc-run --check reference on the graph renamed to a libm or libc
           symbol (`exp`, `cosf`, `memcpy`, `malloc`, ...): must compile,
           run and match.

Usage: fuzz-crash.py [--count N] [--seed S] [--time-budget SECONDS]
                     [--tgc-opt PATH] [--tgc-run PATH] [--jobs J]
                     [--keep-failures DIR] [--timeout SECONDS] [-v]
Case i of a run uses seed S + i; its kind is chosen from the seed. Exit
status 1 when any case failed.
"""

import argparse
import glob
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

from scriptload import load_script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


graphs = load_script("fuzz-graphs.py")


def tgc_passes():
    """Every pass flag declared in TableGen."""
    names = set()
    for td in glob.glob(os.path.join(ROOT, "include", "**", "*.td"),
                        recursive=True):
        with open(td) as f:
            names.update(re.findall(r'Pass<"([a-z0-9-]+)"', f.read()))
    return sorted(names)


# Stages after which a snapshot is taken: passes of the two pipelines.
STAGES = {
    "--tgc-cpu-pipeline": [
        "tgc-symbolize-shapes", "tgc-infer-shapes", "tgc-generate-guards",
        "tgc-simplify-guards", "tgc-lower-guards", "tgc-decompose",
        "tgc-fuse", "tgc-to-linalg", "tgc-form-kernels", "tgc-order-loops",
        "one-shot-bufferize", "tgc-plan-memory", "convert-scf-to-openmp",
        "tgc-hoist-allocas", "tgc-report-checks", "tgc-check-allocations",
    ],
    "--tgc-gpu-pipeline": [
        "tgc-fuse", "tgc-to-linalg", "tgc-fuse-group-elementwise",
        "one-shot-bufferize", "tgc-plan-memory", "tgc-gpu-form-kernels",
    ],
}

# Symbols of libm and libc that a function may be named after.
LIBRARY_NAMES = [
    "exp", "expf", "log", "logf", "sin", "sinf", "cos", "cosf", "tanh",
    "tanhf", "erf", "erff", "pow", "powf", "sqrt", "fmod", "fmodf", "floor",
    "ceilf", "round", "exp2", "expm1", "log1p", "atan2", "memcpy", "memset",
    "memmove", "malloc", "free", "calloc", "realloc", "aligned_alloc",
    "abort", "puts", "printf", "strlen", "exit",
]

HUGE = [
    "%h{n} = tgc.full 1.0 : f32 : tensor<4611686018427387904x4xf32>",
    "%h{n} = tgc.iota 0 : i64, 1 : i64 : tensor<9223372036854775807xi64>",
    "%h{n} = tgc.constant dense<2.0> : tensor<1099511627776x1024xf32>",
    "%h{n} = tgc.full 0 : i8 : tensor<1099511627776x1099511627776xi8>",
]

TOKEN = re.compile(r"%[\w.$-]+|@[\w.$-]+|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\w+|[^\s\w]")
REPLACEMENTS = ["0", "1", "-1", "2", "?", "9223372036854775807", "f32", "i1",
                "index", "memref<?xf32>", "tensor<0x?xf32>", "%arg0", "[",
                "]", "(", ")", "<", ">", ",", "{", "}"]


def mutate(rng, text):
    """One to three token-level edits (delete, duplicate, replace)."""
    for _ in range(rng.randint(1, 3)):
        tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
        if not tokens:
            break
        start, end = rng.choice(tokens)
        kind = rng.randrange(3)
        if kind == 0:
            text = text[:start] + text[end:]
        elif kind == 1:
            text = text[:end] + " " + text[start:end] + text[end:]
        else:
            text = text[:start] + rng.choice(REPLACEMENTS) + text[end:]
    return text


def run(cmd, timeout, stdin=None):
    try:
        p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), \
            p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s"


def write_case(work, name, text):
    """Writes `text` to the file `name` in `work`; returns its path."""
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run_tgc_run(args, path, seed, opts, check=True):
    """tgc-run on the case (checked against the reference when `check`):
    the command, its exit status and its stderr."""
    cmd = ([args.tgc_run, path] + (["--check", "reference"] if check else []) +
           ["--seed", str(seed % 1000)] + opts)
    rc, _, err = run(cmd, args.timeout)
    return cmd, rc, err


def verdict(rc, err, allow_mismatch=True):
    """None when the run ended acceptably, else what went wrong."""
    if rc is None:
        return "hang"
    if rc < 0:
        return f"crash (signal {-rc}: {signal.Signals(-rc).name})"
    if "Stack dump" in err or "PLEASE submit a bug report" in err:
        return "crash (stack dump)"
    if not allow_mismatch and rc == 1 and "mismatch" in err:
        return "mismatch"
    return None


def snapshot(tgc_opt, path, pipeline, stage, timeout):
    """The module after `stage` of `pipeline`, or None."""
    rc, _, err = run([tgc_opt, path, pipeline, "-o", "/dev/null",
                      f"--mlir-print-ir-after={stage}",
                      "--mlir-print-ir-module-scope",
                      "--mlir-disable-threading"], timeout)
    if rc is None or rc < 0:
        return None
    dumps = re.split(r"^// -----// IR Dump After .*$", err, flags=re.M)
    if len(dumps) < 2:
        return None
    text = dumps[1]
    # Drop anything after the module (diagnostics printed later).
    end = text.rfind("\n}")
    return text[: end + 2] + "\n" if end >= 0 else None


def case_pass(rng, seed, text, work, args, passes):
    path = write_case(work, f"case-{seed}.mlir", text)
    pipeline = rng.choice(sorted(STAGES))
    stage = rng.choice(STAGES[pipeline])
    snap = snapshot(args.tgc_opt, path, pipeline, stage, args.timeout)
    source = f"{pipeline} until {stage}"
    if snap is None:
        snap, source = text, "the tgc graph"
    if rng.random() < 0.5:
        snap = mutate(rng, snap)
        source += ", mutated"
    snap_path = write_case(work, f"case-{seed}-input.mlir", snap)
    p = rng.choice(passes)
    cmd = [args.tgc_opt, snap_path, f"--{p}", "-o", "/dev/null"]
    rc, _, err = run(cmd, args.timeout)
    return verdict(rc, err), cmd, f"--{p} on {source}", [snap_path]


def sizes_with(opts, rng, value):
    """The shape options with one dynamic size (of one call) set to value."""
    spots = [(i, j) for i, o in enumerate(opts) if o in ("--shape", "--calls")
             for j in [i + 1]]
    if not spots:
        return None
    i, j = rng.choice(spots)
    parts = opts[j].split(",")
    k = rng.randrange(len(parts))
    arg, dims = parts[k].split("=")
    dims = dims.split("x")
    dims[rng.randrange(len(dims))] = str(value)
    parts[k] = arg + "=" + "x".join(dims)
    out = list(opts)
    out[j] = ",".join(parts)
    return out


def case_empty(rng, seed, text, opts, work, args):
    new = sizes_with(opts, rng, 0)
    if new is None:  # no dynamic size: make a static one 0
        dims = re.findall(r"tensor<(\d+)x", text)
        if not dims:
            return None, [], "nothing to empty", []
        text = re.sub(r"tensor<" + dims[0] + "x", "tensor<0x", text)
        new = opts
    path = write_case(work, f"case-{seed}.mlir", text)
    cmd, rc, err = run_tgc_run(args, path, seed, new)
    return verdict(rc, err, allow_mismatch=False), cmd, "a size 0", [path]


def case_huge(rng, seed, text, opts, work, args):
    line = rng.choice(HUGE).format(n=seed)
    name, rtype = line.split(" = ")[0], line.rsplit(" : ", 1)[1]
    m = re.search(r"^  return (.*) : (.*)$", text, flags=re.M)
    if m:
        text = (text[: m.start()] + "  " + line + "\n" +
                f"  return {m.group(1)}, {name} : {m.group(2)}, {rtype}" +
                text[m.end():])
        text = re.sub(r"-> \(?([^{]*?)\)? \{", lambda h: f"-> ({h.group(1)}, {rtype}) {{",
                      text, count=1)
    path = write_case(work, f"case-{seed}.mlir", text)
    cmd, rc, err = run_tgc_run(args, path, seed, opts, check=False)
    return verdict(rc, err), cmd, "an enormous result", [path]


def case_name(rng, seed, text, opts, work, args):
    name = rng.choice(LIBRARY_NAMES)
    text = text.replace("@fuzz(", f"@{name}(", 1)
    path = write_case(work, f"case-{seed}.mlir", text)
    cmd, rc, err = run_tgc_run(args, path, seed, opts)
    bad = verdict(rc, err, allow_mismatch=False)
    if bad is None and rc != 0 and "reserved name" in err:
        bad = "rejected a library name in the JIT"
    return bad, cmd, f"named @{name}", [path]


def run_case(index, seed, work, args, passes):
    rng = random.Random(seed * 7919 + 17)
    text, opts, desc = graphs.gen_graph(seed)
    kind = rng.choices(["pass", "empty", "huge", "name"],
                       weights=[6, 2, 1, 1])[0]
    if kind == "pass":
        bad, cmd, what, files = case_pass(rng, seed, text, work, args, passes)
    elif kind == "empty":
        bad, cmd, what, files = case_empty(rng, seed, text, opts, work, args)
    elif kind == "huge":
        bad, cmd, what, files = case_huge(rng, seed, text, opts, work, args)
    else:
        bad, cmd, what, files = case_name(rng, seed, text, opts, work, args)
    return dict(index=index, seed=seed, kind=kind, bad=bad, cmd=cmd,
                what=what, files=files, desc=desc)


def keep(res, keep_dir):
    os.makedirs(keep_dir, exist_ok=True)
    base = os.path.join(keep_dir, f"case-{res['seed']}")
    cmd = list(res["cmd"])
    for i, f in enumerate(res["files"]):
        target = f"{base}-{i}.mlir"
        shutil.copy(f, target)
        cmd = [target if c == f else c for c in cmd]
    with open(base + ".sh", "w") as out:
        out.write(f"#!/bin/sh\n# {res['bad']}: {res['what']}\n" +
                  " ".join(shlex.quote(c) for c in cmd) + "\n")
    return base + ".sh"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tgc-opt", default="tgc-opt")
    parser.add_argument("--tgc-run", default="tgc-run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--time-budget", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--keep-failures", default=None, metavar="DIR")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    args.tgc_opt = shutil.which(args.tgc_opt) or args.tgc_opt
    args.tgc_run = shutil.which(args.tgc_run) or args.tgc_run
    passes = tgc_passes()

    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-crash-") as work:
        def report(res):
            if args.verbose:
                print(f"seed {res['seed']} {res['kind']}: "
                      f"{res['bad'] or 'ok'} ({res['what']})", flush=True)
            if res["bad"]:
                where = ""
                if args.keep_failures:
                    where = " -> " + keep(res, args.keep_failures)
                print(f"FAIL seed {res['seed']} ({res['kind']}): "
                      f"{res['bad']}: {res['what']}{where}", flush=True)

        results = graphs.run_seeds(
            args, start, report,
            lambda i: (run_case, i, args.seed + i, work, args, passes))
    failed = [r for r in results if r["bad"]]
    kinds = {}
    for r in results:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print(f"{len(results)} cases, {len(failed)} failures "
          f"({time.monotonic() - start:.1f} s; " +
          ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + ")")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
