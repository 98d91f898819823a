"""What `tgc.explain` reports: compiles, recompiles and their reasons, graph
breaks, eager fallbacks, guards, dispatch-cache hits, compile time per
phase, kernels and memory per specialization, in the model's names
(tgc._names). `Explanation.save_html` writes the same as a page
(tgc._report)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple


@dataclass
class SpecReport:
    """One compiled specialization."""

    index: int
    device: str
    graph: str  # the traced graph (its regions, with graph breaks)
    guards: List[str]  # every guard
    guard_summary: List[str]  # guards on parameters and buffers counted
    hits: int  # calls the dispatch cache served with it (after the first)
    compile_ms: float  # the compiler's, all regions
    # Where the time went: ("trace", ms), then the compiler's phases.
    phases: List[Tuple[str, float]]
    kernels: int
    regions: int
    arena_bytes: Optional[int]  # the intermediate buffers' arena, per call
    arg_names: List[str]
    # The kernels and launch plan (GPU) or loops (CPU), when kept
    # (TGC_LOGS=output_code, TGC_TRACE, tgc.compile(..., options="keep-code=1")).
    code: str = ""
    breaks: List[Any] = field(default_factory=list)
    # "kernel K: scope@file:line|..." per kernel, and the arena's buffers
    # ("offset bytes first last" per line), as the compiler reports them
    # (tgc_compiled_code "kernels" / "arena").
    kernel_map: str = ""
    arena_layout: str = ""
    # GPU: each launch-plan step for the example sizes (kernel, strategy,
    # grid, bytes; tgc._capi.StepInfo), every region's in order.
    steps: List[Any] = field(default_factory=list)
    # The last tgc.profile of each region (tgc._capi.CallProfile), if any.
    profiles: List[Any] = field(default_factory=list)
    # The on-disk compile cache, per region: "hit" (loaded), "miss"
    # (compiled and stored), "miss, not stored" or "off".
    disk_cache: List[str] = field(default_factory=list)

    @property
    def total_ms(self) -> float:
        return sum(ms for _, ms in self.phases)

    def headline(self) -> str:
        parts = [f"{self.hits} dispatch-cache hit(s)", f"{self.kernels} kernel(s)"]
        if self.regions > 1:
            parts.append(f"{self.regions} regions")
        if self.arena_bytes is not None:
            parts.append(f"arena {format_bytes(self.arena_bytes)} (intermediate buffers)")
        if self.profiles:
            ms = sum(p.call_ms or 0.0 for p in self.profiles)
            parts.append(f"profiled: {ms * 1e3:.1f} us per call" if ms < 1
                         else f"profiled: {ms:.3f} ms per call")
        phases = ", ".join(f"{n} {ms:.1f}" for n, ms in self.phases)
        hits = self.disk_cache.count("hit")
        if hits and hits == len(self.disk_cache):
            how = "loaded from the disk cache"
        elif hits:
            how = f"{hits} of {len(self.disk_cache)} regions from the disk cache, compiled"
        else:
            how = "compiled"
        return (f"specialization {self.index} ({self.device}): " + ", ".join(parts)
                + f"; {how} in {self.total_ms:.1f} ms ({phases})")

    def kernel_rows(self) -> List[Any]:
        """The steps, timed where a profile has them (its steps, else the
        example sizes')."""
        timed = [s for p in self.profiles for s in p.steps]
        return timed if timed else list(self.steps)


def format_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


@dataclass
class Explanation:
    compiles: int
    graphs: List[str]
    guards: List[List[str]]
    recompile_reasons: List[str]
    compile_ms: List[float]
    hits: List[int]
    fallbacks: int
    fallback_reasons: List[str] = field(default_factory=list)
    # The eager islands between compiled regions (fullgraph=False), each
    # once: op, file:line, reason.
    graph_breaks: List[Any] = field(default_factory=list)
    # Training specializations (tgc._autograd), a line each, then their
    # forward and backward graph breaks.
    training: List[str] = field(default_factory=list)
    name: str = ""
    specializations: List[SpecReport] = field(default_factory=list)
    # Why the function runs eagerly on every call, when it does.
    eager_reason: Optional[str] = None

    def summary(self) -> str:
        trained = sum(1 for t in self.training if t.startswith("training specialization"))
        recompiles = len(self.recompile_reasons)
        text = (f"{self.name + ': ' if self.name else ''}{self.compiles} compile(s)"
                + (f" ({recompiles} recompile(s))" if recompiles else "")
                + (f" and {trained} training compile(s)" if trained else "")
                + f", {len(self.graph_breaks)} graph break(s)"
                + f", {self.fallbacks} call(s) run eagerly")
        hits = sum(self.hits)
        if self.compiles:
            text += (f"; {hits} call(s) served by the in-process dispatch cache "
                     f"({len(self.specializations)} specialization(s))")
        disk = [c for s in self.specializations for c in s.disk_cache]
        if disk and disk.count("off") < len(disk):
            text += (f"; disk cache: {disk.count('hit')} hit(s), "
                     f"{len(disk) - disk.count('hit') - disk.count('off')} miss(es)")
        return text

    def __str__(self) -> str:
        lines = [self.summary()]
        lines += ["eager fallback: " + r for r in self.fallback_reasons]
        lines += self.training
        lines += ["graph break: " + str(b) for b in self.graph_breaks]
        for s in self.specializations:
            lines.append(s.headline())
            lines += ["  " + g if g.startswith("+ ") else "  guard: " + g
                      for g in s.guard_summary]
            if any(p.steps for p in s.profiles):
                from ._profile import format_steps

                peak = next((p.peak_gbps for p in s.profiles if p.peak_gbps), None)
                lines.append("  kernels (last tgc.profile):")
                lines += ["    " + row for row in format_steps(s.kernel_rows(), peak)]
        lines += [f"recompile {i + 1}: {r}" for i, r in enumerate(self.recompile_reasons)]
        return "\n".join(lines)

    def save_html(self, path: str) -> str:
        """Writes the report as one self-contained HTML page; returns the
        path."""
        from . import _report

        return _report.write(self, path)
