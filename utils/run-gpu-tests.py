#!/usr/bin/env python3
"""Runs TGC's execution tests on a CUDA GPU without lit or FileCheck.

The GPU machine has neither LLVM's lit nor FileCheck, so this runner reads
the RUN lines of the integration tests itself:

- test/Integration/GPU/*.mlir are GPU tests (`REQUIRES: cuda-gpu`): every
  RUN line runs as written (with %s, %S, %t substituted); a line piping into
  `grep` checks the JSON report.
- With --cpu-tests, every other test/Integration file is run again on the
  GPU: each `tgc-run ... --check reference` line that is expected to pass
  (no `not`) gets `--device cuda`, its FileCheck pipe is replaced by a check
  of `"reference_ok": true`, and a run that fails with "not supported on the
  GPU" counts as UNSUPPORTED (the diagnostic is printed), not as a failure.

    utils/run-gpu-tests.py --tgc-run .gpu-bundle/tgc-run.sh [--cpu-tests]

Split mode, for a GPU machine without LLVM: compile every case here into a
folder of artifacts, inputs and reference results, then run the folder
there with lib/Runtime's tgc-gpu-run (built from source on that machine):

    utils/run-gpu-tests.py --tgc-run build/bin/tgc-run --cpu-tests \
        --save-cases .gpu-cases                       # here
    utils/run-gpu-tests.py --run-cases .gpu-cases \
        --tgc-gpu-run build-rt/tgc-gpu-run            # on the GPU machine

With --sanitizer memcheck,initcheck,racecheck,synccheck the cases run
again under CUDA's compute-sanitizer, once per tool: an out-of-bounds or
misaligned access, a read of device memory no one wrote, a shared-memory
race or an invalid barrier fails the case even when its results match
(memory read before it is written can match by luck).

Prints one line per RUN line and a summary; exits 1 on any failure.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_lines(path):
    """The file's RUN commands, continuation lines joined."""
    lines, current = [], ""
    for raw in open(path):
        m = re.match(r"\s*(?://|#)?\s*RUN:\s?(.*)$", raw)
        if not m:
            continue
        text = m.group(1).rstrip()
        if text.endswith("\\"):
            current += text[:-1] + " "
            continue
        lines.append(current + text)
        current = ""
    return lines


def substitute(cmd, path, tmp, tgc_run):
    cmd = cmd.replace("%tgc_src_root", ROOT)
    cmd = cmd.replace("%s", path).replace("%S", os.path.dirname(path))
    cmd = cmd.replace("%t", tmp).replace("%python", sys.executable)
    return re.sub(r"(?<![\w/.-])tgc-run(?![\w.-])", tgc_run, cmd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tgc-run")
    ap.add_argument("--save-cases", default="",
                    help="compile each case into this folder (no GPU)")
    ap.add_argument("--run-cases", default="",
                    help="run the cases of this folder with --tgc-gpu-run")
    ap.add_argument("--tgc-gpu-run", default="")
    ap.add_argument("--sanitizer", default="",
                    help="with --run-cases: also run every case under "
                         "compute-sanitizer with these tools (comma list of "
                         "memcheck, initcheck, racecheck, synccheck)")
    ap.add_argument("--compute-sanitizer", default="compute-sanitizer",
                    help="the compute-sanitizer binary")
    ap.add_argument("--cpu-tests", action="store_true",
                    help="also run the CPU integration tests on the GPU")
    ap.add_argument("--filter", default="", help="regex on the file path")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--compile-only", action="store_true",
                    help="compile for the GPU without running (no GPU "
                         "needed): checks that every test compiles")
    args = ap.parse_args()
    if args.run_cases:
        return run_cases(args)
    if not args.tgc_run:
        ap.error("--tgc-run is required")
    tgc_run = os.path.abspath(args.tgc_run)
    manifest = []
    results = {"PASS": 0, "FAIL": 0, "UNSUPPORTED": 0}
    tmpdir = tempfile.mkdtemp(prefix="tgc-gpu-tests-")

    def record(status, name, detail=""):
        results[status] += 1
        print(f"{status}: {name}" + (f"\n    {detail}" if detail else ""),
              flush=True)

    gpu_dir = os.path.join(ROOT, "test", "Integration", "GPU")
    files = sorted(os.path.join(gpu_dir, f) for f in os.listdir(gpu_dir)
                   if f.endswith(".mlir"))
    cpu_files = []
    if args.cpu_tests:
        cpu_dir = os.path.join(ROOT, "test", "Integration")
        cpu_files = sorted(os.path.join(cpu_dir, f) for f in os.listdir(cpu_dir)
                           if f.endswith((".mlir", ".test")))
    for path in files + cpu_files:
        if args.filter and not re.search(args.filter, path):
            continue
        gpu_test = path.startswith(gpu_dir)
        rel = os.path.relpath(path, ROOT)
        for i, cmd in enumerate(run_lines(path)):
            name = f"{rel} RUN#{i}"
            tmp = os.path.join(tmpdir, os.path.basename(path))
            if not gpu_test and re.match(r"\s*(%python|echo)\b", cmd):
                pass  # input files for the runs below
            elif not gpu_test:
                # CPU tests: only passing reference runs of tgc-run.
                if (not re.match(r"\s*tgc-run\b", cmd) or
                        "--check reference" not in cmd):
                    continue
                cmd = re.sub(r"\|\s*FileCheck.*$", "", cmd).strip()
                if "--json" not in cmd:
                    cmd += " --json"
                cmd += " --device cuda"
                cmd += " | grep -q '\"reference_ok\": true'"
            if (args.compile_only or args.save_cases) and \
                    "tgc-run" not in cmd and gpu_test:
                continue
            if args.save_cases and "tgc-run" in cmd:
                if "--device cuda" not in cmd or "--check reference" not in cmd:
                    continue
                cmd = re.sub(r"\|.*$", "", cmd).strip()
                cmd = re.sub(r"\s--json\b", "", cmd)
                run_flags = []
                for flag in ("--cuda-graphs", "--fresh-inputs"):
                    if flag in cmd:
                        run_flags.append(flag)
                        cmd = cmd.replace(flag, "")
                m = re.search(r"--repeat\s+(\d+)", cmd)
                if m:
                    run_flags += ["--repeat", m.group(1)]
                    cmd = cmd.replace(m.group(0), "")
                cmd = re.sub(r">\s*\S+", "", cmd)
                case = f"case{len(manifest)}"
                case_dir = os.path.join(os.path.abspath(args.save_cases), case)
                cmd += f" --compile-only --save-case {case_dir}"
                manifest.append((case, name, " ".join(run_flags)))
            if args.compile_only and "tgc-run" in cmd:
                if "--device cuda" not in cmd or "--check reference" not in cmd:
                    continue
                cmd = re.sub(r"\|.*$", "", cmd).strip()
                cmd += " --compile-only --ptx-only"
            cmd = substitute(cmd, path, tmp, tgc_run)
            try:
                p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd],
                                   capture_output=True, text=True,
                                   timeout=args.timeout, cwd=ROOT)
            except subprocess.TimeoutExpired:
                record("FAIL", name, f"timed out after {args.timeout} s")
                continue
            out = (p.stdout + p.stderr).strip()
            if p.returncode == 0:
                record("PASS", name)
            elif "not supported on the GPU" in out or "GPU path" in out:
                lines = out.splitlines()
                line = next((l for l in lines if "not supported on the GPU"
                             in l or "GPU path" in l), lines[-1] if lines else "")
                record("UNSUPPORTED", name, line[:300])
            else:
                record("FAIL", name, shlex.quote(cmd)[:300] + "\n    " +
                       out[-1500:].replace("\n", "\n    "))
    if args.save_cases:
        with open(os.path.join(args.save_cases, "manifest.txt"), "w") as f:
            for case, name, flags in manifest:
                if os.path.exists(os.path.join(args.save_cases, case,
                                               "call0.case")):
                    f.write(f"{case}\t{name}\t{flags}\n")
    print(f"\n{results['PASS']} passed, {results['FAIL']} failed, "
          f"{results['UNSUPPORTED']} unsupported on the GPU")
    return 1 if results["FAIL"] else 0


def run_cases(args):
    """Runs a folder written by --save-cases with tgc-gpu-run, then again
    under each --sanitizer tool."""
    import json
    import shutil
    counts = {"PASS": 0, "FAIL": 0}
    tools = [""] + [t for t in args.sanitizer.split(",") if t]
    sanitizer = shutil.which(args.compute_sanitizer) or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer",)
         if os.path.exists(p)), "")
    if len(tools) > 1 and not sanitizer:
        print("FAIL: --sanitizer: compute-sanitizer not found")
        return 1
    for tool in tools:
        if tool:
            print(f"\n== compute-sanitizer --tool {tool}", flush=True)
        for line in open(os.path.join(args.run_cases, "manifest.txt")):
            case, name, flags = line.rstrip("\n").split("\t")
            cmd = [args.tgc_gpu_run, os.path.join(args.run_cases, case), "--json"]
            cmd += flags.split()
            if tool:
                # Errors go to stderr (--print-limit keeps a bad case
                # short); --error-exitcode makes any report a failure.
                cmd = [sanitizer, "--tool", tool, "--error-exitcode", "99",
                       "--print-limit", "10"] + cmd
            try:
                p = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=args.timeout * (4 if tool else 1))
            except subprocess.TimeoutExpired:
                counts["FAIL"] += 1
                print(f"FAIL{'[' + tool + ']' if tool else ''}: {name} [{flags}] timed out",
                      flush=True)
                continue
            ok = p.returncode == 0
            detail = ""
            try:
                report = json.loads(p.stdout[p.stdout.index("{"):p.stdout.rindex("}") + 1])
                ok = ok and report["reference_ok"]
                if "--cuda-graphs" in flags:
                    ok = ok and report["graph_replays"] > 0
                if "--cuda-graphs" in flags and "--fresh-inputs" in flags:
                    # Changed pointers were patched into the graph (kernels) or
                    # the graph was captured again (GEMM operands).
                    ok = ok and (report["patched_nodes"] > 0 or
                                 report["graph_captures"] > report["calls"])
                detail = (f"run {report['run_ms']:.4f} ms, max abs err "
                          f"{report['max_abs_err']:.3g}, graphs "
                          f"{report['graph_captures']}/{report['graph_replays']}/"
                          f"{report['patched_nodes']}")
            except (ValueError, KeyError):
                ok = False
            if not ok:
                detail = (p.stdout + p.stderr)[-1500:]
                if tool:
                    # The first report (what was accessed, by which kernel
                    # or API call, from where) and the summary, not the
                    # tail of the last one.
                    reports = [l for l in (p.stdout + p.stderr).splitlines()
                               if l.startswith("=========")]
                    detail = "\n".join(reports[:40] + reports[-2:])
            status = "PASS" if ok else "FAIL"
            counts[status] += 1
            print(f"{status}{'[' + tool + ']' if tool else ''}: {name} [{flags}] {detail}",
                  flush=True)
    print(f"\n{counts['PASS']} passed, {counts['FAIL']} failed")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
