"""Accuracy checking against the reference interpreter (TGC_CHECK=reference).

With `tgc.set_check("reference")` (or the environment variable
`TGC_CHECK=reference`), every call of a compiled graph also runs the graph
on TGC's reference interpreter (the oracle of `tgc-run --check reference`)
with host copies of the same inputs, parameters and buffers, and compares
every result and every updated input. A difference beyond the tolerance of
its dtype raises `tgc.AccuracyError` naming the result, the error and a
folder with a reproducer: the graph (`graph.mlir`), its inputs as `.npy`
files and `repro.sh`, a `tgc-run` command that compiles and checks the
same call on its own. This separates "TGC compiled the graph wrongly" (a
mismatch here) from "the graph TGC traced is not the model" (no mismatch
here, but results differ from eager): the first is a compiler bug, the
second a tracer one.

It costs a host copy of every input and an interpreted run per call: a
debugging mode, like PyTorch's TORCHDYNAMO_REPRO_LEVEL=4.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from typing import List, Optional, Sequence

import torch

from . import _capi

_MODES = ("", "reference")
_mode = ""


class AccuracyError(_capi.TgcError):
    """A compiled graph's result differs from the reference interpreter's."""


def set_check(mode: str) -> None:
    """"reference": check every compiled call against the reference
    interpreter; "" (default): no checking."""
    global _mode
    if mode not in _MODES:
        raise ValueError(f"unknown check mode {mode!r}; expected one of {_MODES}")
    _mode = mode
    from . import _native_path  # checked calls take the Python path
    _native_path.set_flag("check", mode != "reference")


def get_check() -> str:
    return _mode


def enabled() -> bool:
    return _mode == "reference"


try:
    set_check(os.environ.get("TGC_CHECK", ""))
except ValueError as e:  # a bad environment must not make `import tgc` fail
    import warnings

    warnings.warn(f"TGC_CHECK: {e}")


def tolerance(dtype: torch.dtype, device: str) -> float:
    """Largest max|got - want| / max|want| accepted (the zoo's)."""
    if dtype == torch.bfloat16:
        return 4e-2
    if dtype == torch.float16:
        return 1e-2
    if dtype == torch.float64:
        return 1e-9
    # f32: summation order differs (vectorized and split reductions, GEMM
    # libraries); the reference adds in order.
    return 2e-3 if device == "cuda" else 1e-4


def relative_error(got: torch.Tensor, want: torch.Tensor) -> float:
    """max|got - want| / max|want| (inf on a shape or dtype difference, on
    NaN or infinity in different places; 0 or inf for integers)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return float("inf")
    if got.numel() == 0:
        return 0.0
    g, w = got.detach().cpu(), want.detach().cpu()
    if not w.dtype.is_floating_point:
        return 0.0 if torch.equal(g, w) else float("inf")
    g, w = g.double(), w.double()
    if not torch.equal(torch.isnan(g), torch.isnan(w)):
        return float("inf")
    finite = torch.isfinite(w)
    if not torch.equal(g[~finite].nan_to_num(), w[~finite].nan_to_num()):
        return float("inf")
    if not finite.any():
        return 0.0
    g, w = g[finite], w[finite]
    return float((g - w).abs().max()) / max(float(w.abs().max()), 1e-30)


def host_copies(tensors: Sequence[torch.Tensor]) -> List[torch.Tensor]:
    return [t.detach().to("cpu", copy=True) for t in tensors]


def _save_reproducer(text: str, entry: str, inputs: Sequence[torch.Tensor],
                     device: str) -> Optional[str]:
    """Writes graph.mlir, argN.npy and repro.sh; None when an input has no
    .npy form (bfloat16) or the folder cannot be written."""
    try:
        import numpy as np
    except ImportError:
        return None
    try:
        root = os.environ.get("TGC_CHECK_DIR") or None
        if root:
            os.makedirs(root, exist_ok=True)
        where = tempfile.mkdtemp(prefix=f"tgc-check-{entry}-", dir=root)
        with open(os.path.join(where, "graph.mlir"), "w") as f:
            f.write(text)
        names = []
        for i, t in enumerate(inputs):
            if t.dtype == torch.bfloat16:
                names = None
                break
            name = f"arg{i}.npy"
            np.save(os.path.join(where, name), t.numpy())
            names.append(name)
        with open(os.path.join(where, "repro.sh"), "w") as f:
            f.write("#!/bin/sh\n# Compiles the graph and checks this call against the "
                    "reference interpreter.\ncd \"$(dirname \"$0\")\"\n")
            cmd = ["tgc-run", "graph.mlir", f"--entry={entry}", "--check", "reference",
                   "--device", device]
            if names is not None:
                cmd.append("--inputs=" + ",".join(names))
            else:
                f.write("# bfloat16 inputs have no .npy form: random inputs of the "
                        "same shapes instead.\n")
                cmd += [f"--shape={i}={'x'.join(map(str, t.shape))}"
                        for i, t in enumerate(inputs) if t.dim()]
            f.write(" ".join(shlex.quote(c) for c in cmd) + " \"$@\"\n")
        os.chmod(os.path.join(where, "repro.sh"), 0o755)
        return where
    except OSError:
        return None


def compare(text: str, entry: str, inputs_before: Sequence[torch.Tensor],
            args_after: Sequence[torch.Tensor], results: Sequence[torch.Tensor],
            device: str) -> None:
    """Runs the reference on `inputs_before` (host copies taken before the
    compiled call) and raises AccuracyError when a result or an updated
    argument differs."""
    ref_args = [t.clone() for t in inputs_before]
    want = _capi.reference_run(text, entry, ref_args)
    checks = [(f"result {i}", g, w) for i, (g, w) in enumerate(zip(results, want))]
    checks += [(f"argument {i} (updated in place)", g, w)
               for i, (g, w) in enumerate(zip(args_after, ref_args))
               if not torch.equal(w, inputs_before[i])]
    if len(results) != len(want):
        checks.append((f"{len(results)} results, the reference has {len(want)}",
                       torch.zeros(1), torch.ones(1)))
    for what, got, ref in checks:
        err = relative_error(got, ref)
        tol = tolerance(ref.dtype, device) if ref.dtype.is_floating_point else 0.0
        if err > tol:
            where = _save_reproducer(text, entry, inputs_before, device)
            raise AccuracyError(
                f"TGC_CHECK=reference: {entry}: {what} differs from the reference "
                f"interpreter: max relative error {err:.3g} > {tol:g} "
                f"({tuple(ref.shape)} {ref.dtype} on {device})"
                + (f"; reproducer in {where} (repro.sh)" if where else ""))
