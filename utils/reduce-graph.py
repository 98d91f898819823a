#!/usr/bin/env python3
"""Reduce a graph that the compiler gets wrong to a small one that it still
gets wrong, on the machine that shows the failure.

    utils/reduce-graph.py (--seed S [--models F] | GRAPH.mlir)
                          [--call N] [--device cuda|cpu] [--options "..."]
                          [--out REDUCED.mlir] [--time-budget SECONDS] [-v]

The graph is a fuzz-graphs.py seed or a file in tgc-run's format (a
`// options:` line with `--shape`/`--calls` gives its sizes). A candidate is
"still wrong" when compiling it for --device and running it on the inputs
of call N gives a result that differs from the reference interpreter's at
tgc-run's tolerances (as utils/fuzz-gpu.py compares), or when it fails
with an internal error while the reference runs.

Reduction steps, repeated until none applies:
  * keep only the first wrong result (the others are dropped);
  * drop each `tgc.write_out` (an out-buffer update);
  * cut each op: its uses read a new function argument of its type, given
    the value the op had (from the reference interpreter), so everything
    that only fed it is deleted and the rest computes what it computed;
  * delete ops nothing uses.
A cut or deletion is kept only when the candidate is still wrong, so the
result fails for the same inputs of the same sizes. It is printed, with
the shapes as a `// options:` line, and written to --out.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

from scriptload import load_script

HERE = os.path.dirname(os.path.abspath(__file__))


fuzz_gpu = load_script("fuzz-gpu.py")


def split_top(text, sep=","):
    """Splits at `sep` outside <>, (), {}, []."""
    depth, cur, parts = 0, "", []
    for ch in text:
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


class Graph:
    """A single-function graph as lines: parameters, body ops, results."""

    def __init__(self, text):
        lines = text.splitlines()
        start = next(i for i, l in enumerate(lines) if l.startswith("func.func"))
        ret = next(i for i, l in enumerate(lines) if l.strip().startswith("return"))
        head = lines[start]
        self.name = re.match(r"func\.func @([\w.$-]+)\(", head).group(1)
        close = head.rindex(") ->")
        self.params = split_top(head[head.index("(") + 1:close])
        self.body = [l for l in lines[start + 1:ret] if l.strip()]
        r = lines[ret].strip()[len("return"):].strip()
        names, types = (r.split(" : ", 1) + [""])[:2] if r else ("", "")
        self.results = list(zip(split_top(names), split_top(types)))

    def text(self):
        results = ", ".join(t for _, t in self.results)
        head = f"func.func @{self.name}({', '.join(self.params)}) -> ({results}) {{"
        ret = ("  return " + ", ".join(n for n, _ in self.results) + " : " + results
               if self.results else "  return")
        return "\n".join([head] + self.body + [ret, "}"]) + "\n"

    def copy(self):
        g = Graph.__new__(Graph)
        g.name, g.params, g.body, g.results = (self.name, list(self.params),
                                               list(self.body), list(self.results))
        return g


def defined(line):
    """(name, number of results) an op line defines, or None."""
    m = re.match(r"\s*(%[\w.$-]+)(?::(\d+))? = ", line)
    return (m.group(1), int(m.group(2) or 1)) if m else None


def used_names(line):
    rhs = line.split(" = ", 1)[1] if defined(line) else line
    return set(re.findall(r"(%[\w.$-]+)(?:#\d+)?", rhs))


def result_type(line):
    """The result type of a one-result op line."""
    text = line.split(" loc(")[0]
    ty = text.rsplit("->", 1)[1] if "->" in text else text.rsplit(" : ", 1)[1]
    return split_top(ty)[-1] if "(" not in ty else ty.strip()


def dce(g):
    """Deletes ops whose results nothing uses (write_outs stay)."""
    changed = True
    while changed:
        changed = False
        live = set()
        for n, _ in g.results:
            live.add(n.split("#")[0])
        for line in g.body:
            if not defined(line):
                live |= used_names(line)
        keep = []
        for line in reversed(g.body):
            d = defined(line)
            if d and d[0] not in live:
                changed = True
                continue
            live |= used_names(line)
            keep.append(line)
        g.body = list(reversed(keep))
    # Parameters are kept: the inputs of the call are by position.
    return g


class Checker:
    def __init__(self, graph, opts, call, device, options, seed):
        import torch

        self.torch = torch
        self.device, self.options = device, options
        sig = fuzz_gpu.arguments(graph.text())
        calls = fuzz_gpu.call_shapes(opts, sig)
        gen = torch.Generator().manual_seed(seed)
        for c, shapes in enumerate(calls):
            inputs = fuzz_gpu.make_inputs(sig, shapes, gen)
            if c == call:
                break
        self.inputs, self.shapes = inputs, shapes
        self.tests = 0

    def compile_options(self, inputs):
        from tgc import _capi

        opts = [f"device={self.device}"] + self.options.split()
        if self.device == "cpu":
            libs = _capi.bundled_shared_libs()
            if libs:
                opts.append("shared-libs=" + ":".join(libs))
        opts += ["example=%d:%s" % (i, "x".join(map(str, t.shape)))
                 for i, t in enumerate(inputs) if t.dim()]
        return " ".join(opts)

    def run(self, g, inputs):
        """None (reference fails), or the list of mismatch messages (None
        where a result or out buffer agrees)."""
        from tgc import _capi

        text = g.text()
        ref_args = [t.clone() for t in inputs]
        try:
            want = _capi.reference_run(text, g.name, ref_args)
        except _capi.TgcError:
            return None
        self.tests += 1
        try:
            c = _capi.Compiled(text, g.name, self.compile_options(inputs))
            dev_args = [t.to(self.device) for t in inputs]
            got = c.run(_capi.Args(dev_args), self.torch.device(self.device))
            if self.device == "cuda":
                self.torch.cuda.synchronize()
        except _capi.TgcError as e:
            msg = str(e)
            if "not supported on the GPU" in msg or "Unsupported" in msg:
                return None
            return ["error: " + msg.strip().splitlines()[-1][:200]]
        out = [fuzz_gpu.mismatch(a.cpu(), b) for a, b in zip(got, want)]
        out += [fuzz_gpu.mismatch(a.cpu(), b) for a, b in zip(dev_args, ref_args)]
        return out

    def wrong(self, g, inputs):
        r = self.run(g, inputs)
        return r is not None and any(m is not None for m in r)

    def value_of(self, g, inputs, name, ty):
        """The value `name` has at this call (from the reference)."""
        from tgc import _capi

        probe = g.copy()
        probe.results = [(name, ty)]
        dce(probe)
        try:
            return _capi.reference_run(probe.text(), probe.name,
                                       [t.clone() for t in inputs])[0]
        except _capi.TgcError:
            return None


def reduce_graph(g, checker, budget, verbose):
    start = time.monotonic()
    inputs = list(checker.inputs)
    log = print if verbose else (lambda *a, **k: None)

    first = checker.run(g, inputs)
    if first is None or all(m is None for m in first):
        sys.exit("the graph is not wrong on this machine; nothing to reduce")
    bad = next(i for i, m in enumerate(first) if m is not None)
    print(f"wrong: {'result' if bad < len(g.results) else 'out buffer'} "
          f"{bad if bad < len(g.results) else bad - len(g.results)}: {first[bad]}", flush=True)
    if bad < len(g.results):
        cand = dce(g.copy())
        cand.results = [g.results[bad]]
        dce(cand)
        if checker.wrong(cand, inputs):
            g = cand
    # The shortest wrong prefix that returns its last op's value (bisected:
    # a prefix is assumed to stay wrong once an op in it is miscompiled).
    ends = [i for i, l in enumerate(g.body)
            if defined(l) and defined(l)[1] == 1 and "tgc.constant" not in l]

    def prefix(k):
        i = ends[k]
        cand = g.copy()
        cand.body = g.body[:i + 1]
        cand.results = [(defined(g.body[i])[0], result_type(g.body[i]))]
        return dce(cand)

    lo, hi, tried = 0, len(ends) - 1, {}
    while lo < hi and time.monotonic() - start < budget / 3:
        mid = (lo + hi) // 2
        tried[mid] = checker.wrong(prefix(mid), inputs)
        log(f"prefix {mid} of {len(ends)}: {'wrong' if tried[mid] else 'right'}", flush=True)
        if tried[mid]:
            hi = mid
        else:
            lo = mid + 1
    if ends and hi < len(ends) - 1 and (tried.get(hi) or checker.wrong(prefix(hi), inputs)):
        g = prefix(hi)
        log(f"truncated to the prefix ending at {g.results[0][0]}:", len(g.body), "lines", flush=True)
    changed = True
    while changed and time.monotonic() - start < budget:
        changed = False
        # Out-buffer updates.
        i = 0
        while i < len(g.body):
            if not defined(g.body[i]) and "tgc.write_out" in g.body[i]:
                cand = g.copy()
                del cand.body[i]
                dce(cand)
                if checker.wrong(cand, inputs):
                    g, changed = cand, True
                    log("dropped a write_out;", len(g.body), "lines", flush=True)
                    continue
            i += 1
        # Cuts, from the last op back: each removes what only fed it.
        i = len(g.body) - 1
        while i >= 0 and time.monotonic() - start < budget:
            if i >= len(g.body):
                i = len(g.body) - 1
                continue
            line = g.body[i]
            d = defined(line)
            if not d or d[1] != 1 or "tgc.constant" in line:
                i -= 1
                continue
            name, ty = d[0], result_type(line)
            value = checker.value_of(g, inputs, name, ty)
            if value is None:
                i -= 1
                continue
            cand = g.copy()
            arg = f"%cut{len(cand.params)}"
            cand.params.append(f"{arg}: {ty}")
            del cand.body[i]
            pat = re.compile(re.escape(name) + r"(?![\w.$-])")
            cand.body = [l if not used_names(l) & {name} else pat.sub(arg, l)
                         for l in cand.body]
            cand.results = [(pat.sub(arg, n), t) for n, t in cand.results]
            dce(cand)
            extra = [value]
            if checker.wrong(cand, inputs + extra):
                g, inputs, changed = cand, inputs + extra, True
                log(f"cut {name};", len(g.body), "lines", flush=True)
            i -= 1
    # Arguments nothing reads (with their inputs).
    used = set()
    for line in g.body:
        used |= used_names(line)
    used |= {n.split("#")[0] for n, _ in g.results}
    keep = [i for i, p in enumerate(g.params) if p.split(":")[0].strip() in used]
    g.params = [g.params[i] for i in keep]
    inputs = [inputs[i] for i in keep]
    return g, inputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("graph", nargs="?")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--models", type=float, default=0.1)
    parser.add_argument("--call", type=int, default=0)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--options", default="")
    parser.add_argument("--out")
    parser.add_argument("--time-budget", type=float, default=600)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    if args.seed is not None:
        graphs = fuzz_gpu._import_graphs()
        text, opts, _ = graphs.gen_graph(args.seed, model=graphs.is_model_seed(args.seed, args.models))
        seed = args.seed
    elif args.graph:
        text = open(args.graph).read()
        line = next((l for l in text.splitlines() if l.startswith("// options:")), "// options:")
        opts = line[len("// options:"):].split()
        seed = 0
    else:
        parser.error("give a graph file or --seed")
    if "--no-fuse" in opts:
        args.options += " fuse=0"
    if "--policy" in opts:
        args.options += " policy=" + opts[opts.index("--policy") + 1]
    g = Graph(text)
    checker = Checker(g, opts, args.call, args.device, args.options, seed)
    start = time.monotonic()
    g, inputs = reduce_graph(g, checker, args.time_budget, args.verbose)
    shapes = ",".join("%d=%s" % (i, "x".join(map(str, t.shape))) for i, t in enumerate(inputs))
    out = g.text() + f"// options: --calls {shapes}\n"
    msgs = checker.run(g, inputs) or []
    out += "// " + "; ".join(m for m in msgs if m) + "\n"
    print(f"reduced to {len(g.body)} ops and {len(g.params)} arguments in "
          f"{checker.tests} runs ({time.monotonic() - start:.0f} s)")
    print(out)
    if args.out:
        with open(args.out, "w") as f:
            f.write(out)
        import torch
        torch.save(inputs, args.out + ".inputs.pt")


if __name__ == "__main__":
    main()
