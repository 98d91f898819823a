"""`tgc.profile`: each kernel of a compiled call timed alone, with the bytes
it moves and the bandwidth it reaches, next to the device's peak.

The call runs as usual (its result is returned with the profile); then each
compiled region it ran is timed again on copies of its inputs
(tgc_compiled_profile: on the GPU each launch-plan step alone, `repeat`
runs back to back between CUDA events, then the whole region; on the CPU
the whole region). The last profile of each specialization shows in
`tgc.explain` and in the compile report (docs/explain.md, "Profiles").
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

import torch

from . import _capi

_active = threading.local()


@dataclass
class RegionProfile:
    """One compiled region of the call (a whole graph, or the part between
    graph breaks)."""

    name: str
    device: str
    profile: _capi.CallProfile


def _fmt_bytes(n: Optional[int]) -> str:
    from ._explain import format_bytes

    return "?" if n is None else format_bytes(n)


def _fmt_ms(ms: Optional[float]) -> str:
    if ms is None:
        return "-"
    return f"{ms * 1e3:.1f} us" if ms < 1 else f"{ms:.3f} ms"


def format_steps(steps: Sequence[_capi.StepInfo], peak: Optional[float]) -> List[str]:
    """A table, a row per step; the time columns when the steps are timed."""
    timed = any(s.ms is not None for s in steps)
    rows = [["step", "kernel", "strategy", "launch", "bytes"]
            + (["time", "bandwidth", "compute"] if timed else [])]
    for i, s in enumerate(steps):
        row = [str(i), s.name, s.strategy, s.launch, _fmt_bytes(s.bytes)]
        if timed:
            g = s.gbps
            bw = "?" if g is None else f"{g:.0f} GB/s" + (
                f" ({100 * g / peak:.0f}%)" if peak else "")
            row += [_fmt_ms(s.ms), bw if s.ms is not None else "-",
                    f"{s.tflops:.3g} TFLOP/s" if s.tflops else ""]
        rows.append(row)
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]


@dataclass
class Profile:
    """What `tgc.profile` returns: the call's result and, per compiled
    region it ran, the profile of its kernels."""

    function: str
    result: Any
    regions: List[RegionProfile] = field(default_factory=list)

    @property
    def steps(self) -> List[_capi.StepInfo]:
        return [s for r in self.regions for s in r.profile.steps]

    @property
    def call_ms(self) -> float:
        """The compiled regions' time per call (eager islands excluded)."""
        return sum(r.profile.call_ms or 0.0 for r in self.regions)

    def __str__(self) -> str:
        lines = []
        for r in self.regions:
            p = r.profile
            head = f"{r.name} ({r.device}): {_fmt_ms(p.call_ms)} per call ({p.repeat} runs)"
            if p.device:
                head += f" on {p.device}"
            if p.peak_gbps:
                head += f", memory peak {p.peak_gbps:.0f} GB/s"
            lines.append(head)
            if p.steps:
                lines += ["  " + row for row in format_steps(p.steps, p.peak_gbps)]
                alone = sum(s.ms or 0.0 for s in p.steps)
                lines.append(f"  the steps alone: {_fmt_ms(alone)}")
            elif r.device == "cpu":
                lines.append("  (the CPU's kernels are not timed one by one: the "
                             "whole region)")
        return "\n".join(lines) if lines else f"{self.function}: nothing compiled ran"


class _Session:
    def __init__(self, repeat: int):
        self.repeat = repeat
        self.regions: List[RegionProfile] = []


def active() -> bool:
    return getattr(_active, "session", None) is not None


def record(compiled: _capi.Compiled, name: str, inputs: Sequence[torch.Tensor]) -> None:
    """Called by the run path after a compiled region ran, while a profile
    is active: times the region on copies of its inputs."""
    session: Optional[_Session] = getattr(_active, "session", None)
    if session is None:
        return
    copies = [t.clone() for t in inputs]
    if compiled.device == "cuda":
        # The profile runs on TGC's own stream: the copies must be ready.
        torch.cuda.synchronize()
    p = compiled.profile(_capi.Args(copies), session.repeat)
    session.regions.append(RegionProfile(name, compiled.device, p))


def profile(compiled_fn, *args, repeat: int = 20, **kwargs) -> Profile:
    """Calls `compiled_fn(*args, **kwargs)` (a `tgc.compile`d function or
    module) and times each compiled region that ran: on the GPU each kernel
    and GEMM alone, with the bytes it moves, its bandwidth and its share of
    the memory's peak; on the CPU the whole region. A call that needs
    gradients profiles the forward graph of the training path (its
    backward runs later, under autograd, and is not profiled)."""
    from ._compile import CompiledFunction

    if not isinstance(compiled_fn, CompiledFunction):
        raise TypeError("tgc.profile takes what tgc.compile returns, got "
                        f"{type(compiled_fn).__name__}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be an int >= 1, got {repeat!r}")
    if getattr(_active, "session", None) is not None:
        raise RuntimeError("tgc.profile does not nest")
    session = _Session(repeat)
    _active.session = session
    try:
        # The Python path: the native one runs without asking.
        result = compiled_fn._call_python(*args, **kwargs)
    finally:
        _active.session = None
    out = Profile(compiled_fn.name, result, session.regions)
    if not out.regions:
        why = compiled_fn.eager_reason or "no compiled code ran for it (it ran eagerly)"
        raise RuntimeError(f"tgc.profile: {compiled_fn.name}: {why}")
    return out
