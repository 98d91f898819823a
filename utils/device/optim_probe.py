"""Where the host time of tgc.compile(opt.step) goes on GPT-2's parameters
(session 21): cProfile of the Python side, and the pieces timed alone."""
import cProfile
import pstats
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel

import tgc

params = [p for p in GPT2LMHeadModel(GPT2Config()).cuda().parameters()]
for p in params:
    p.grad = torch.randn_like(p) * 1e-2


def timed(what, f, n=20):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        f()
    host = (time.perf_counter() - t) / n * 1e3
    torch.cuda.synchronize()
    print(f"{what:40s} host {host:8.3f} ms/call", flush=True)


for mode in ("default", "reduce-overhead"):
    opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.1)
    step = tgc.compile(opt.step, mode=mode)
    step()
    step()
    timed(f"step ({mode})", step)
    fn = next(iter(step.compiled.values()))
    numbers = next(iter(step.numbers.values()))
    state = [opt.state[p] for p in params]
    tensors = params + [p.grad for p in params] + [s["exp_avg"] for s in state] + \
        [s["exp_avg_sq"] for s in state]
    torch.set_grad_enabled(False)  # as the step calls it
    timed(f"  compiled call alone ({mode})", lambda: fn(*tensors, numbers))
    steps = [s["step"] for s in state]
    timed("  _foreach_add_(steps, 1)", lambda: torch._foreach_add_(steps, 1))
    timed("  stack(steps).tolist()", lambda: torch.stack(steps).tolist())
    rows = [[1.0, 2.0, 3.0]] * len(params)
    timed("  numbers.copy_(tensor(rows))", lambda: numbers.copy_(torch.tensor(rows)))
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(10):
        fn(*tensors, numbers)
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(12)
    print(tgc.explain(fn).specializations[0].headline(), flush=True)
    torch.set_grad_enabled(True)
