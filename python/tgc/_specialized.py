"""A compiled specialization of a `tgc.compile`d function: the compiled
code, its trace, the guards in the model's names (tgc._names) and what
`tgc.explain` reports of it (tgc._explain)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import torch

from . import _capi, _names, _state
from ._explain import SpecReport
from ._trace import TraceResult, storage_ptr


@dataclass
class Specialized:
    compiled: _capi.Compiled
    trace: TraceResult
    keys: Tuple[Any, ...]  # non-tensor arguments, by value
    example_shapes: List[Optional[List[int]]]
    captured: _state.CapturedTensors
    hits: int = 0
    compile_ms: Optional[float] = None  # all regions' (graph breaks)
    trace_ms: float = 0.0
    # The intermediate arena for the example call (CPU), when known.
    arena_bytes: Optional[int] = None
    # torch.get_default_dtype() when traced: factories without a dtype
    # (torch.ones(3), torch.tensor(2.5)) made their results in it.
    default_dtype: Any = None
    # tgc._state.hooks_version() when traced: a module hook registered or
    # removed since changes what the module computes.
    hooks_version: int = 0
    # The TF32 flags its f32 products were compiled under, (("matmuls",
    # False), ("convolutions", True)) (tgc._state.tf32_record): calls
    # under other values need another specialization.
    tf32: Tuple[Tuple[str, bool], ...] = ()

    def first_tensors(self, tensors, captured) -> List[torch.Tensor]:
        """The tensors the first compiled function takes: the call's and
        the captured ones, or, with graph breaks, the first region's."""
        program = self.trace.program
        if program is None:
            return list(tensors) + list(captured)
        env = self.environment(tensors, captured)
        return [env[n] for n in program.steps[0].args]

    def environment(self, tensors, captured) -> Dict[str, torch.Tensor]:
        env = {f"%arg{i}": t for i, t in enumerate(tensors)}
        env.update(zip(self.trace.captured_value_names, captured))
        return env

    def names(self) -> _names.ArgNames:
        """The model's names of the call's tensors and captured tensors
        (`arg3` in a guard is `names().name(3)`)."""
        tr = self.trace
        # State: the captured tensors (not graph-break results, which are
        # arguments of later regions too).
        captured = set(tr.captured_value_names) if tr.captured_value_names else {
            f"%arg{i}" for i in range(tr.num_user_args, tr.num_user_args + len(tr.captured))}
        return _names.ArgNames(tr.arg_names,
                               [f"%arg{i}" in captured for i in range(len(tr.arg_names))])

    def compiled_names(self) -> _names.ArgNames:
        """The names of the compiled guards' arguments: the call's, or with
        graph breaks the first region's."""
        names = self.names()
        program = self.trace.program
        if program is None:
            return names
        out, state = [], []
        for a in program.steps[0].args:
            m = re.fullmatch(r"%arg(\d+)", a)
            i = int(m.group(1)) if m else -1
            out.append(names.name(i) if m else a)
            state.append(m is not None and i < len(names.state) and names.state[i])
        return _names.ArgNames(out, state)

    def report(self, index: int, verbose_guards: bool = False) -> SpecReport:
        """What tgc.explain shows of it (`verbose_guards`: every guard in
        the summary, TGC_LOGS=+guards)."""
        program = self.trace.program
        parts = [r.compiled for r in program.regions] if program is not None \
            else [self.compiled]
        arena = self.arena_bytes
        if arena is None and self.compiled.device == "cuda":
            arena = self.compiled.arena_bytes()  # the last call's
        code = "\n".join(c for c in (p.code("plan") or p.code("loops") for p in parts) if c)
        compile_ms = self.compile_ms if self.compile_ms is not None \
            else self.compiled.compile_ms
        return SpecReport(
            index=index, device=self.compiled.device, graph=self.trace.text,
            guards=self.guard_report(everything=True),
            guard_summary=self.guard_report(verbose_guards),
            hits=self.hits, compile_ms=compile_ms,
            phases=[("trace", self.trace_ms)] + _phases(parts),
            kernels=sum(max(p.kernels, 0) for p in parts),
            regions=len(parts), arena_bytes=arena,
            arg_names=self.names().names, code=code,
            breaks=list(program.breaks) if program is not None else [],
            kernel_map="".join(p.code("kernels") for p in parts),
            steps=[st for p in parts for st in p.steps()],
            profiles=[p.last_profile for p in parts if p.last_profile is not None],
            disk_cache=[p.cache_status for p in parts],
            arena_layout=parts[0].code("arena"))

    def guard_strings(self) -> List[str]:
        """Every guard, with the model's names."""
        return self.guard_report(everything=True)

    def guard_report(self, everything: bool = False) -> List[str]:
        """The guards with the model's names; unless `everything`, those on
        parameters, buffers and module attributes alone (they change only
        with the module) are counted on one line each."""
        cnames, names = self.compiled_names(), self.names()
        out: List[str] = []
        state_guards, state_args = 0, set()
        # A GPU plan checks an equality as two range guards with one text.
        for t, r in dict.fromkeys(self.compiled.guards):
            if not everything and cnames.on_state_only(t):
                state_guards += 1
                state_args.update(re.findall(r"\barg ?(\d+)", t))
                continue
            out.append(f"{cnames.rename(t)}  ({cnames.rename(r)})")
        attributes = []
        for g in self.trace.value_guards:
            if not everything and g.what.startswith("self."):
                attributes.append(g.what)
            else:
                out.append(g.describe())
        for a, v in self.trace.value_specs:
            out.append(f"value({names.name(a)}) == {v!r}  (read as a Python number)")
        for s in self.trace.specializations:
            out.append(names.rename(f"arg{s.arg}_dim{s.dim} == {s.value}  ({s.reason})"))
        out += [names.rename(g.describe()) for g in self.trace.size_guards]
        if state_guards:
            out.append(f"+ {state_guards} guards on {len(state_args)} parameters and buffers "
                       "(rank, dtype, device, sizes, layout: they change only with the "
                       "module; TGC_LOGS=+guards lists them)")
        if attributes:
            shown = ", ".join(attributes[:3]) + (", ..." if len(attributes) > 3 else "")
            out.append(f"+ {len(attributes)} guards on module attributes ({shown}; "
                       "TGC_LOGS=+guards lists them)")
        return out


def eager_reason(spec: Specialized, originals, tensors) -> Optional[str]:
    """Why this call must run eagerly although `spec` accepts its dense
    tensors (`tensors`: `originals` made contiguous), or None."""
    if spec.trace.layout_read and any(
            isinstance(o, torch.Tensor) and (not o.is_contiguous() or o.storage_offset())
            for o in originals):
        # Python read a layout (x.is_contiguous(), x.stride()) of the
        # dense tensors it was traced on: not this call's.
        return ("a tensor argument that is not dense from offset 0, and the function "
                "reads tensor layouts (is_contiguous, stride, ...)")
    if spec.trace.mutated_args:
        # The compiled code would update a dense copy of one of them: the
        # other would not see the update.
        for i, (o, t) in enumerate(zip(originals, tensors)):
            if o is t or not isinstance(o, torch.Tensor):
                continue
            ptr = storage_ptr(o)
            for j, other in enumerate(originals):
                if j != i and isinstance(other, torch.Tensor) and ptr and storage_ptr(other) == ptr:
                    return (f"arguments that share memory with a non-contiguous one (arg {i} "
                            f"and arg {j}) while it updates an argument in place")
    return None


def _phases(parts) -> List[Tuple[str, float]]:
    """The compiler's phases summed over the regions, in order; its
    total where it reports no phases."""
    total: Dict[str, float] = {}
    for p in parts:
        phases = p.phases() or [("compile", p.compile_ms)]
        for name, ms in phases:
            total[name] = total.get(name, 0.0) + ms
    return list(total.items())
