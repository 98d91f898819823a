#!/usr/bin/env python3
"""Training benchmark: one training step (forward, backward, optimizer)
with tgc.compile and torch.compile(backend="tgc") next to eager PyTorch and
torch.compile (Inductor), in one process (docs/training.md).

    python3 utils/bench/training.py [--device cuda] [--models gpt2,resnet18,mlp]
                                    [--steps 20] [--modes eager,inductor,tgc,tgc-backend]
                                    [--tf32 default|on|off]
                                    [--optimizer eager|compiled|fused]

For each model and mode it prints:
  first   the first step, forward and backward compiles included (ms)
  step    the median step time after it (ms), with a device synchronization
  loss    the loss after the last step (all modes start from the same
          weights and see the same batches: the losses agree to rounding)
  breaks  graph breaks TGC reported in the forward and backward graphs
and the ratio of each mode's step time to eager's (>1: faster than eager).
With --profile N, each mode's steps after the first also run under
torch.profiler, and the N kernels and operators with the most device time
are printed per mode, after the forward / backward / optimizer split of a
step (each part timed alone, with a synchronization after it);
--kernels FILE appends every device kernel's time and count per step to FILE
(model, mode, us, count, name; tab-separated).
--phases prints, for the tgc modes, where the natively served compiled
calls' host time goes per call (entry, arguments, captured tensors,
guards, the runtime's plan evaluation and launches, result allocation;
tgc._native_path.phase_profile) over the steps after the first.
--optimizer compiled has the compiled modes compile AdamW's step too
(torch.compile(opt.step) for Inductor, tgc.compile(opt.step) for TGC);
fused runs PyTorch's AdamW(fused=True) everywhere, for reference.
--tf32 sets PyTorch's two TF32 flags for every mode (TGC's f32 GEMMs
follow them as eager's cuBLAS and cuDNN calls do; docs/python.md, "TF32").
Models: a GPT-2-size causal LM (Hugging Face GPT-2 from its config with
random weights when transformers is installed, else utils/zoo's own
GPT-like module), torchvision's ResNet-18, and a small MLP.
"""

import argparse
import copy
import os
import statistics
import sys
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tgc  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024),
                                 nn.LayerNorm(1024), nn.Linear(1024, 10))

    def forward(self, x, y):
        return F.cross_entropy(self.net(x), y)


# --breaks: print each graph break of a tgc.compile training graph.
SHOW_BREAKS = False


def _model(name, device, batch):
    g = torch.Generator().manual_seed(0)
    if name == "mlp":
        m = MLP()
        data = (torch.randn(batch or 256, 1024, generator=g),
                torch.randint(0, 10, (batch or 256,), generator=g))
        return m, data, lambda m, x, y: m(x, y)
    if name == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel

        cfg = GPT2Config(n_layer=12, n_embd=768, n_head=12, vocab_size=50257,
                         n_positions=1024, attn_implementation="eager")
        m = GPT2LMHeadModel(cfg)
        b, t = batch or 8, 512
        ids = torch.randint(0, 50257, (b, t), generator=g)
        return m, (ids,), lambda m, ids: m(input_ids=ids, labels=ids).loss
    if name == "resnet18":
        import torchvision

        m = torchvision.models.resnet18(num_classes=1000)
        b = batch or 64
        x = torch.randn(b, 3, 224, 224, generator=g)
        y = torch.randint(0, 1000, (b,), generator=g)
        return m, (x, y), lambda m, x, y: F.cross_entropy(m(x), y)
    raise SystemExit(f"unknown model {name}")


def _compiled(mode, model):
    if mode == "eager":
        return model
    if mode == "inductor":
        return torch.compile(model)
    if mode == "tgc":
        return tgc.compile(model, fallback=True)
    if mode == "tgc-backend":
        return torch.compile(model, backend="tgc")
    raise SystemExit(f"unknown mode {mode}")


def _breaks(mode, compiled) -> str:
    if mode == "tgc":
        lines = tgc.explain(compiled).training
        if SHOW_BREAKS:
            for line in lines:
                if "graph break" in line:
                    print(f"#   {line.strip()}")
        return str(sum("graph break" in line for line in lines))
    if mode == "tgc-backend":
        from tgc import backend

        return str(sum(len(tgc.explain(g).graph_breaks) for g in backend.graphs()))
    return "-"


# The profiler range around each profiled step (--profile).
STEP_RANGE = "tgc-bench step"

# --optimizer: how each mode runs AdamW's step.
OPTIMIZER = "eager"
KERNELS = None
PHASES = False  # --phases


def _optimizer_step(mode, opt):
    """eager: opt.step in every mode (PyTorch's foreach step on CUDA);
    compiled: the compiled modes compile it too (Inductor: torch.compile of
    opt.step; tgc and tgc-backend: tgc.compile(opt.step)); fused:
    AdamW(fused=True), PyTorch's one fused kernel, in every mode."""
    if OPTIMIZER != "compiled" or mode == "eager":
        return opt.step
    if mode == "inductor":
        return torch.compile(opt.step)
    return tgc.compile(opt.step)


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def _profile(name, mode, c, opt, opt_step, loss_of, data, device, steps, top):
    """The forward / backward / optimizer split of a step, then the
    operators and kernels with the most device time over `steps` steps."""
    parts = {"forward": [], "backward": [], "optimizer": []}
    for _ in range(steps):
        _sync(device)
        t0 = time.perf_counter()
        loss = loss_of(c, *data)
        _sync(device)
        t1 = time.perf_counter()
        loss.backward()
        _sync(device)
        t2 = time.perf_counter()
        opt_step()
        opt.zero_grad(set_to_none=True)
        _sync(device)
        t3 = time.perf_counter()
        for k, a, b in (("forward", t0, t1), ("backward", t1, t2), ("optimizer", t2, t3)):
            parts[k].append((b - a) * 1000)
    print(f"{name:9s} {mode:12s} " + "  ".join(
        f"{k} {statistics.median(v):.2f} ms" for k, v in parts.items()), flush=True)
    from torch.profiler import ProfilerActivity, profile

    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    from torch.profiler import record_function

    # Each step synchronized at its end, as the timed steps are: the span
    # includes the host's time before a step's first kernel (its lead).
    with profile(activities=acts) as prof:
        for _ in range(steps):
            with record_function(STEP_RANGE):
                loss = loss_of(c, *data)
                loss.backward()
                opt_step()
                opt.zero_grad(set_to_none=True)
                _sync(device)
    if device == "cuda":
        _busy(name, mode, prof, steps)
    events = prof.key_averages()
    key = "self_cpu_time_total"
    if device == "cuda":
        key = "self_device_time_total" if hasattr(events[0], "self_device_time_total") \
            else "self_cuda_time_total"
    print(events.table(sort_by=key, row_limit=top, max_name_column_width=70), flush=True)
    if KERNELS and device == "cuda":
        # Every device kernel, copy and memset: per step, for comparing modes
        # offline (the table above shows the top N only).
        with open(KERNELS, "a") as f:
            for e in events:
                t = getattr(e, key, 0)
                if t > 0 and str(getattr(e, "device_type", "")).endswith("CUDA") \
                        and e.key != STEP_RANGE:
                    f.write(f"{name}\t{mode}\t{t / steps:.2f}\t{e.count / steps:g}\t{e.key}\n")


def _busy(name, mode, prof, steps):
    """How much of the profiled steps' span the GPU ran kernels, copies or
    memsets (the union of their intervals): the rest is the host's time
    between them (launches, Python, synchronizations)."""
    spans = []
    for e in prof.events():
        # (The step's range also shows on the device's timeline, as a user
        # annotation over its kernels: not device work of its own.)
        if "cuda" in str(getattr(e, "device_type", "")).lower() and e.name != STEP_RANGE:
            spans.append((e.time_range.start, e.time_range.end, e.name))
    if not spans:
        return
    spans.sort()
    busy, (lo, hi, last) = 0.0, spans[0]
    first = lo
    gaps = {}  # (kernel before, kernel after) -> [total µs, count]
    for a, b, n in spans[1:]:
        if a > hi:
            busy += hi - lo
            if a - hi > 20:
                g = gaps.setdefault((last[:50], n[:50]), [0.0, 0])
                g[0] += a - hi
                g[1] += 1
            lo, hi = a, b
        else:
            hi = max(hi, b)
        if b >= hi:
            last = n
    busy += hi - lo
    span = hi - first
    print(f"{name:9s} {mode:12s} device busy {busy / 1000 / steps:.2f} ms of "
          f"{span / 1000 / steps:.2f} ms per step ({100 * (1 - busy / span):.1f}% idle, "
          f"{len(spans) / steps:.0f} device events per step)", flush=True)
    # Per step: the host's time from the step's start to its first device
    # event (guards, argument handling, the first launches), and from its
    # last device event to the step's end (the synchronization's wake-up).
    ranges = sorted((e.time_range.start, e.time_range.end) for e in prof.events()
                    if e.name == STEP_RANGE
                    and "cuda" not in str(getattr(e, "device_type", "")).lower())
    leads, tails = [], []
    for s0, s1 in ranges:
        inside = [(a, b) for a, b, _ in spans if s0 <= a <= s1]
        if inside:
            leads.append(inside[0][0] - s0)
            tails.append(max(0.0, s1 - max(b for _, b in inside)))
    if leads:
        print(f"{name:9s} {mode:12s} host before the first kernel {statistics.median(leads) / 1000:.2f} "
              f"ms, after the last {statistics.median(tails) / 1000:.2f} ms (median per step)",
              flush=True)
    # Where the device waited longest (gaps over 20 µs), by the kernels
    # around them: the host's work between those launches.
    for (before, after), (total, count) in sorted(gaps.items(), key=lambda kv: -kv[1][0])[:12]:
        print(f"  idle {total / 1000 / steps:7.2f} ms/step in {count // steps or count:4d} gap(s) "
              f"after {before} before {after}", flush=True)


def _phases(name, mode, c, opt_step, opt, loss_of, data, device, steps):
    """Where the natively served compiled calls' host time goes, phase by
    phase (tgc._native_path.phase_profile), over `steps` more steps: the
    forward and the backward graph of each step are one call each."""
    from tgc import _native_path

    with _native_path.phase_profile() as phases:
        for _ in range(steps):
            loss = loss_of(c, *data)
            loss.backward()
            opt_step()
            opt.zero_grad(set_to_none=True)
        _sync(device)
    calls = phases.pop("calls", 0)
    if not calls:
        print(f"{name:9s} {mode:12s} phases: no natively served call", flush=True)
        return
    total = sum(phases.values())
    print(f"{name:9s} {mode:12s} phases: {calls / steps:g} native calls per step, "
          f"{total:.1f} us host per call: "
          + ", ".join(f"{k} {v:.1f}" for k, v in phases.items()), flush=True)


def run(name, modes, device, steps, batch, top=0):
    model, data, loss_of = _model(name, device, batch)
    data = tuple(d.to(device) for d in data)
    rows = {}
    for mode in modes:
        if mode == "inductor" or mode == "tgc-backend":
            torch._dynamo.reset()
        m = copy.deepcopy(model).to(device).train()
        c = _compiled(mode, m)
        fused = {"fused": True} if OPTIMIZER == "fused" else {}
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4, **fused)
        opt_step = _optimizer_step(mode, opt)
        times = []
        loss = None
        for step in range(steps):
            _sync(device)
            start = time.perf_counter()
            loss = loss_of(c, *data)
            loss.backward()
            opt_step()
            opt.zero_grad(set_to_none=True)
            _sync(device)
            times.append((time.perf_counter() - start) * 1000)
        rows[mode] = (times[0], statistics.median(times[1:]), loss.item(), _breaks(mode, c))
        print(f"{name:9s} {mode:12s} first {times[0]:9.1f} ms  step {rows[mode][1]:8.2f} ms  "
              f"loss {rows[mode][2]:.5f}  breaks {rows[mode][3]}", flush=True)
        if top:
            _profile(name, mode, c, opt, opt_step, loss_of, data, device, max(steps - 1, 1),
                     top)
        if PHASES and mode.startswith("tgc"):
            _phases(name, mode, c, opt_step, opt, loss_of, data, device, max(steps - 1, 1))
    if "eager" in rows:
        base = rows["eager"][1]
        print(f"{name:9s} step time vs eager: " + ", ".join(
            f"{mode} {base / r[1]:.2f}x" for mode, r in rows.items() if mode != "eager"),
            flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--models", default="gpt2,resnet18")
    p.add_argument("--modes", default="eager,inductor,tgc,tgc-backend")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--breaks", action="store_true",
                   help="print each graph break of tgc.compile's training graphs")
    p.add_argument("--batch", type=int, default=0, help="batch size (0: the model's default)")
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="also print the step's split and the N operators and kernels with "
                        "the most device time, per mode")
    p.add_argument("--phases", action="store_true",
                   help="for the tgc modes: where the compiled calls' host time goes, phase by "
                        "phase (tgc._native_path.phase_profile)")
    p.add_argument("--kernels", default=None, metavar="FILE",
                   help="with --profile: append every device kernel's time per step to FILE")
    p.add_argument("--tf32", choices=("default", "on", "off"), default="default",
                   help="PyTorch's TF32 flags for every mode: as they are (convolutions "
                        "on, matmuls off), both on, or both off")
    p.add_argument("--optimizer", choices=("eager", "compiled", "fused"), default="eager",
                   help="AdamW's step: eager in every mode, compiled by the compiled "
                        "modes (torch.compile / tgc.compile of opt.step), or PyTorch's "
                        "fused kernel in every mode")
    a = p.parse_args()
    global SHOW_BREAKS, OPTIMIZER, KERNELS, PHASES
    SHOW_BREAKS = a.breaks
    KERNELS = a.kernels
    PHASES = a.phases
    OPTIMIZER = a.optimizer
    if a.tf32 != "default":
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = a.tf32 == "on"
    modes = [m for m in a.modes.split(",") if m]
    if not hasattr(torch, "compile"):
        modes = [m for m in modes if m not in ("inductor", "tgc-backend")]
    print(f"# {torch.cuda.get_device_name() if a.device == 'cuda' else 'cpu'}, "
          f"PyTorch {torch.__version__}, {a.steps} steps, AdamW ({a.optimizer}), TF32 matmul "
          f"{torch.backends.cuda.matmul.allow_tf32} conv {torch.backends.cudnn.allow_tf32}",
          flush=True)
    for name in a.models.split(","):
        run(name, modes, a.device, a.steps, a.batch, a.profile)


if __name__ == "__main__":
    main()
