#!/usr/bin/env python3
"""Model-zoo differential harness: real models through TGC against eager.

Every model of utils/zoo/models.py (hand-written ones; Hugging Face and
torchvision models from configs with random weights where installed) is
compiled in each mode -- `tgc.compile` default, `tgc.compile`
reduce-overhead (CUDA graphs on the GPU), `torch.compile(backend="tgc")`
(PyTorch 2.x) -- and called with fresh random inputs at several batch and
sequence sizes. Every result is compared with eager PyTorch (tolerance by
dtype and device), and at the end every earlier result is compared with the
copy taken when it was returned: a later call must not change it (a stale
buffer, an arena or a CUDA graph reused under a result).

    utils/zoo/zoo.py [--models local|hf|torchvision|hf-wide|hf-wide2|torchvision-wide|all|NAME,...]
                     [--modes default,reduce-overhead,backend]
                     [--device cpu|cuda] [--dynamic none|true|false]
                     [--varying] [--json OUT] [-v]

Prints a table (model, mode, device, max error, compiles, calls run
eagerly, status) and exits 1 when any result is wrong (MISMATCH, STALE) or
an internal error escaped (ERROR). With --varying every model is called at
ten sizes and a model compiled more often than `--dynamic` allows (2 for
none, 1 for true) fails too (RECOMPILES). A model TGC cannot compile yet is listed
with the reason (`cannot compile`), not counted as a failure; one compiled
around calls it cannot compile says so (`ok, N graph break(s): ops`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if importlib.util.find_spec("tgc") is None:  # else PYTHONPATH names a bundle
    sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import models as zoo_models  # noqa: E402
import tgc  # noqa: E402


def tolerance(dtype: torch.dtype, device: str) -> float:
    """Largest |got - want| / max|want| accepted for a result."""
    if dtype in (torch.bfloat16,):
        return 4e-2
    if dtype in (torch.float16,):
        return 1e-2
    if dtype == torch.float64:
        return 1e-9
    # f32: accumulation order differs; GPU GEMMs may use TF32-class units.
    return 2e-3 if device == "cuda" else 1e-4


def leaves(x, path="out"):
    """(path, tensor) of every tensor in a result structure."""
    if isinstance(x, torch.Tensor):
        yield path, x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, f"{path}.{k}")
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from leaves(v, f"{path}[{i}]")
    elif hasattr(x, "__dataclass_fields__"):
        for k in x.__dataclass_fields__:
            yield from leaves(getattr(x, k), f"{path}.{k}")


def error(got: torch.Tensor, want: torch.Tensor) -> float:
    """max |got - want| / max |want| over a tensor (inf on a shape, dtype
    or NaN-placement difference)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return math.inf
    if got.numel() == 0:
        return 0.0
    if not want.dtype.is_floating_point:
        return 0.0 if torch.equal(got.cpu(), want.cpu()) else math.inf
    g, w = got.detach().double().cpu(), want.detach().double().cpu()
    if not torch.equal(torch.isnan(g), torch.isnan(w)):
        return math.inf
    finite = ~torch.isnan(w)
    if not finite.any():
        return 0.0
    g, w = g[finite], w[finite]
    if not torch.equal(torch.isinf(g), torch.isinf(w)) or not torch.equal(g[torch.isinf(g)], w[torch.isinf(w)]):
        return math.inf
    g, w = g[~torch.isinf(w)], w[~torch.isinf(w)]
    if w.numel() == 0:
        return 0.0
    scale = max(float(w.abs().max()), 1e-6)
    return float((g - w).abs().max()) / scale


def compare(got, want, device):
    """(worst error over the leaves / its tolerance, worst error, where)."""
    g = dict(leaves(got))
    w = dict(leaves(want))
    if type(got) is not type(want) or g.keys() != w.keys():
        return math.inf, math.inf, f"structure: {type(got).__name__} vs {type(want).__name__}"
    worst = (0.0, 0.0, "")
    for path, t in w.items():
        e = error(g[path], t)
        ratio = e / tolerance(t.dtype, device) if t.dtype.is_floating_point else (0 if e == 0 else math.inf)
        if ratio > worst[0]:
            worst = (ratio, e, path)
    return worst


def clone(x):
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, dict):
        return type(x)(**{k: clone(v) for k, v in x.items()}) if hasattr(x, "__dataclass_fields__") \
            else type(x)((k, clone(v)) for k, v in x.items())
    if isinstance(x, tuple) and hasattr(type(x), "_fields"):
        return type(x)(*[clone(v) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(clone(v) for v in x)
    return x


def first_lines(text: str) -> str:
    """A reason in one line: "N unsupported call(s) in M: <the first>"."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines[:2])[:200]


def explain_totals(compiled, mode):
    """(compiles, calls run eagerly, first fallback reason, graph breaks)."""
    if mode == "backend":
        from tgc import backend

        exps = [tgc.explain(g) for g in backend.graphs()]
    else:
        exps = [tgc.explain(compiled)]
    compiles = sum(e.compiles for e in exps)
    eager = sum(e.fallbacks for e in exps)
    reasons = [r for e in exps for r in e.fallback_reasons]
    breaks = [b for e in exps for b in e.graph_breaks]
    return compiles, eager, reasons[0] if reasons else "", breaks


# --varying: ten sizes per model (none of them 0 or 1, which PyTorch and
# TGC specialize), batch and sequence length changing together and apart.
VARYING_SEQ = [(2, 16), (3, 20), (2, 24), (4, 17), (2, 33), (3, 40), (5, 12), (2, 57),
               (4, 29), (3, 64)]
VARYING_BATCH = [(b, 0) for b in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)]


def varying_sizes(entry):
    """Ten sizes for `entry`: batch only for images and for models without a
    sequence, batch and sequence length for the others."""
    if entry.varying:
        return list(entry.varying)
    if all(seq == 0 for _, seq in entry.sizes):
        return list(VARYING_BATCH)
    return list(VARYING_SEQ)


def compile_budget(dynamic) -> int:
    """The most compiles a model may take over sizes >= 2: one with
    dynamic=True; the static first compile and one dynamic recompile with
    dynamic=None (issue 19)."""
    return 1 if dynamic is True else 2


def run_model(entry, mode, device, verbose, dynamic=None, varying=False):
    row = {"model": entry.name, "mode": mode, "device": device, "error": None,
           "compiles": None, "eager_calls": None, "status": "", "seconds": 0.0,
           "dynamic": dynamic, "calls": 0}
    start = time.perf_counter()
    try:
        if entry.needs and importlib.util.find_spec(entry.needs) is None:
            row["status"] = f"skipped: {entry.needs} is not installed"
            return row
        torch.manual_seed(0)
        model = entry.build().to(device).eval()
    except Exception as e:  # noqa: BLE001
        row["status"] = f"skipped: cannot build the model ({type(e).__name__}: {e})"
        return row
    if mode == "backend":
        if not hasattr(torch, "compile"):
            row["status"] = "skipped: torch.compile needs PyTorch 2.x"
            return row
        from tgc import backend

        torch._dynamo.reset()
        backend._graphs.clear()
        compiled = torch.compile(model, backend="tgc", dynamic=dynamic)
    else:
        if mode == "reduce-overhead" and device != "cuda":
            row["status"] = "skipped: reduce-overhead is a GPU mode"
            return row
        compiled = tgc.compile(model, mode=mode, dynamic=dynamic)
    returned = []  # (result object, its copy when returned)
    worst = (0.0, 0.0, "")
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sizes = varying_sizes(entry) if varying else list(entry.sizes)
            sizes.append(sizes[0])  # a size again
            for k, (batch, seq) in enumerate(sizes):
                torch.manual_seed(100 + k)
                args, kwargs = entry.inputs(batch, seq, torch.device(device))
                want = model(*args, **kwargs)
                got = compiled(*args, **kwargs)
                if device == "cuda":
                    torch.cuda.synchronize()
                result = compare(got, want, device)
                if result[0] > worst[0]:
                    worst = result
                if verbose:
                    print(f"  {entry.name} {mode} call {k} ({batch}x{seq}): "
                          f"error {result[1]:.2e} at {result[2] or '-'}", flush=True)
                returned.append((got, clone(got)))
            stale = None
            for k, (obj, copy) in enumerate(returned):
                r = compare(obj, copy, device)
                if r[1] != 0:
                    stale = f"result of call {k} changed after later calls ({r[2]})"
                    break
    except (tgc.Unsupported, tgc.RecompileError, tgc.TgcError) as e:
        row["status"] = "cannot compile: " + first_lines(str(e))
        if verbose:
            print(f"  {entry.name} {mode}: {type(e).__name__}: {e}", flush=True)
        row["seconds"] = time.perf_counter() - start
        return row
    except Exception as e:  # noqa: BLE001 - an internal error is a failure
        row["status"] = f"ERROR: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        if verbose:
            traceback.print_exc()
        row["seconds"] = time.perf_counter() - start
        return row
    compiles, eager, reason, breaks = explain_totals(compiled, mode)
    if verbose:
        for b in dict.fromkeys(f"{b.op} at {b.where}: {b.reason}" for b in breaks):
            print(f"  {entry.name} {mode} graph break: {b}", flush=True)
    row.update(compiles=compiles, eager_calls=eager, error=worst[1],
               seconds=time.perf_counter() - start, calls=len(sizes),
               graph_breaks=[str(b) for b in breaks])
    if stale:
        row["status"] = "STALE: " + stale
    elif worst[0] > 1:
        row["status"] = f"MISMATCH at {worst[2]}"
    elif eager and not compiles:
        row["status"] = "cannot compile (ran eagerly): " + first_lines(reason)
    elif eager:
        row["status"] = "ok, partly eager: " + first_lines(reason)
    elif varying and compiles > compile_budget(dynamic) + entry.branches - 1 and \
            mode != "backend":
        # (Dynamo splits a model into graphs: its count is per graph.)
        budget = compile_budget(dynamic) + entry.branches - 1
        row["status"] = (f"RECOMPILES: {compiles} compiles for {len(sizes)} calls "
                         f"(at most {budget} with dynamic={dynamic})")
    elif breaks:
        ops = sorted({b.op for b in breaks})
        row["status"] = f"ok, {len(breaks)} graph break(s): " + ", ".join(ops)
    else:
        row["status"] = "ok"
    return row


def select(spec):
    groups = {"local": zoo_models.LOCAL, "hf": zoo_models.HF,
              "torchvision": zoo_models.TORCHVISION, "hf-wide": zoo_models.HF_WIDE,
              "hf-wide2": zoo_models.HF_WIDE2,
              "torchvision-wide": zoo_models.TORCHVISION_WIDE,
              "all": zoo_models.LOCAL + zoo_models.HF + zoo_models.TORCHVISION}
    out = []
    for part in spec.split(","):
        if part in groups:
            out += groups[part]
        elif part in zoo_models.ALL:
            out.append(zoo_models.ALL[part])
        else:
            raise SystemExit(f"zoo: unknown model or group {part!r}; models: "
                             + ", ".join(zoo_models.ALL))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="local")
    parser.add_argument("--modes", default="default,reduce-overhead,backend")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--json", default=None)
    parser.add_argument("--dynamic", choices=("none", "true", "false"), default="none",
                        help="tgc.compile's / torch.compile's dynamic= (default none)")
    parser.add_argument("--varying", action="store_true",
                        help="call each model at ten sizes and fail a model that "
                             "compiles more often than dynamic= allows")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    dynamic = {"none": None, "true": True, "false": False}[args.dynamic]
    rows = []
    print(f"{'model':20} {'mode':16} {'dev':4} {'max error':>10} {'compiles':>8} "
          f"{'eager':>5}  status", flush=True)
    for entry in select(args.models):
        for mode in args.modes.split(","):
            row = run_model(entry, mode, args.device, args.verbose, dynamic=dynamic,
                            varying=args.varying)
            rows.append(row)
            err = "-" if row["error"] is None else f"{row['error']:.2e}"
            comp = "-" if row["compiles"] is None else str(row["compiles"])
            eager = "-" if row["eager_calls"] is None else str(row["eager_calls"])
            print(f"{entry.name:20} {mode:16} {args.device:4} {err:>10} {comp:>8} "
                  f"{eager:>5}  {row['status']}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    bad = [r for r in rows if r["status"].startswith(("MISMATCH", "STALE", "ERROR",
                                                       "RECOMPILES"))]
    ok = sum(r["status"].startswith("ok") for r in rows)
    print(f"{len(rows)} runs: {ok} ok, {len(bad)} wrong or internal errors, "
          f"{sum(r['status'].startswith('cannot') for r in rows)} cannot compile, "
          f"{sum(r['status'].startswith('skipped') for r in rows)} skipped")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
