#!/usr/bin/env python3
"""Mutation fuzzing of tgc-opt's parser and verifiers.

Takes .mlir files, applies random token-level mutations (delete, duplicate,
swap, replace a number or a dimension), runs `tgc-opt` (optionally with a
pass pipeline) on each mutant, and fails if any run dies from a signal
(a crash or an assertion) instead of exiting with a diagnostic. Mutants that
crash are written out for reproduction.

Usage: fuzz-parser.py --tgc-opt PATH [--seed N] [--count N] [--pass ARG]
                      [--out DIR] FILE...
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

TOKEN = re.compile(r"%[\w.$-]+|@[\w.$-]+|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\w+|[^\s\w]")
REPLACEMENTS = ["0", "1", "-1", "2", "?", "64", "9223372036854775807", "f32",
                "i1", "i64", "f16", "[", "]", "(", ")", "<", ">", ",", ":",
                "x", "dense<1.0>", "tensor<?xf32>", "tensor<f32>", "dim",
                "dims", "%arg0", "keepdim", "-0.0", "inf"]


def split_cases(text):
    return [c for c in re.split(r"^// -----$", text, flags=re.M) if c.strip()]


def mutate(rng, text):
    tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
    if not tokens:
        return text
    for _ in range(rng.randint(1, 3)):
        start, end = rng.choice(tokens)
        kind = rng.randrange(4)
        if kind == 0:  # delete
            text = text[:start] + text[end:]
        elif kind == 1:  # duplicate
            text = text[:end] + " " + text[start:end] + text[end:]
        elif kind == 2:  # replace
            text = text[:start] + rng.choice(REPLACEMENTS) + text[end:]
        else:  # swap with another token
            s2, e2 = rng.choice(tokens)
            if s2 > end:
                text = (text[:start] + text[s2:e2] + text[end:s2] +
                        text[start:end] + text[e2:])
        tokens = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
        if not tokens:
            break
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tgc-opt", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--pass", dest="passes", action="append", default=[])
    parser.add_argument("--out", default=None)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    cases = []
    for path in args.files:
        with open(path) as f:
            cases += split_cases(f.read())
    crashes = 0
    with tempfile.TemporaryDirectory() as tmp:
        mutant_path = os.path.join(tmp, "mutant.mlir")
        for i in range(args.count):
            mutant = mutate(rng, rng.choice(cases))
            with open(mutant_path, "w") as f:
                f.write(mutant)
            cmd = [args.tgc_opt, mutant_path] + args.passes
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=60)
            if proc.returncode < 0 or proc.returncode > 1:
                crashes += 1
                out_dir = args.out or os.getcwd()
                crash_path = os.path.join(out_dir, f"crash-{args.seed}-{i}.mlir")
                with open(crash_path, "w") as f:
                    f.write(mutant)
                print(f"CRASH (exit {proc.returncode}) on mutant {i}: "
                      f"{crash_path}\n{proc.stderr.decode()[-2000:]}")
    print(f"{args.count} mutants, {crashes} crashes")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
