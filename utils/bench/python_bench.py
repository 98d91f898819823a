#!/usr/bin/env python3
"""Python benchmark: tgc.compile next to eager PyTorch and torch.compile.

    python3 utils/bench/python_bench.py [--device cpu|cuda] [--calls 100]
    python3 utils/bench/python_bench.py --call-path [--device cpu|cuda] [--phases]

For each model the run prints, for eager, TGC and torch.compile (when the
PyTorch has it; all in the same process), each compiler with dynamic=None
(PyTorch's default: static first, dynamic after a size changes) and with
dynamic=True ("dyn" rows):
  first   the first call, compile included (ms)
  steady  the median of repeated calls at one size (µs)
  varying the total over --calls calls whose sizes vary (ms), compiles
          included: the seed-000, variable-batch and variable-sequence
          scenarios
and the number of compiles each needed (torch.compile's counted as the
graphs its backend compiled). Ratios are TGC's speedup (>1: TGC faster).
Every output is checked against eager first. Real models (Hugging Face
from configs with random weights, where transformers is installed) read
their input's sizes in Python: the symbolic-sizes scenario.
"""

import argparse
import math
import os
import statistics
import sys
import time

# The checkout's package, unless another one (a bundle on PYTHONPATH) comes first.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tgc  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo"))
from models import ReadsShape  # noqa: E402  (utils/zoo: issue 19's example)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(256, 512), nn.Linear(512, 64)

    def forward(self, x):
        return torch.softmax(self.fc2(F.gelu(self.fc1(x))), dim=1)


class LNGelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln, self.fc = nn.LayerNorm(512), nn.Linear(512, 512)

    def forward(self, x):
        return F.gelu(self.fc(self.ln(x)))


class Attention(nn.Module):
    def __init__(self, d=128, heads=4):
        super().__init__()
        self.h, self.d = heads, d
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        qkv = self.qkv(x).unflatten(-1, (3, self.h, self.d // self.h)).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.d // self.h), -1)
        return self.out((att @ v).transpose(1, 2).flatten(2))


class LastHidden(nn.Module):
    """A Hugging Face model called with input ids, returning the last hidden
    state (built from a config: random weights, nothing downloaded)."""

    def __init__(self, config_cls, model_cls, **config):
        super().__init__()
        import transformers

        self.m = getattr(transformers, model_cls)(getattr(transformers, config_cls)(**config))

    def forward(self, ids):
        return self.m(input_ids=ids)[0]


def _ids(vocab):
    return lambda n, d: (torch.randint(0, vocab, (2, n), device=d),)


class Encoder(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.att = Attention(d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = self.ln1(x + self.att(x))
        return self.ln2(x + self.ff2(F.relu(self.ff1(x))))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def topk_out(x, out):
    torch.topk(x, 10, out=out)


def entropy(x):
    p = torch.softmax(x, -1)
    return -(p * torch.log(p + 1e-8)).sum(-1)


# name, callable factory, input factory(size, device), steady size, varying sizes
CASES = [
    ("MLP 256-512-64, batch", MLP, lambda n, d: (torch.randn(n, 256, device=d),), 64, range(1, 101)),
    ("LayerNorm+GELU 512, batch", LNGelu, lambda n, d: (torch.randn(n, 512, device=d),), 64, range(1, 101)),
    ("entropy -(p log p).sum(-1), rows x 1000", lambda: entropy,
     lambda n, d: (torch.randn(n, 1000, device=d),), 64, range(1, 101)),
    ("attention d=128 h=4, batch x 16", Attention, lambda n, d: (torch.randn(n, 16, 128, device=d),), 8, range(1, 21)),
    ("encoder layer d=128, batch x 16", Encoder, lambda n, d: (torch.randn(n, 16, 128, device=d),), 8, range(1, 21)),
    ("CNN 3x32x32, batch", CNN, lambda n, d: (torch.randn(n, 3, 32, 32, device=d),), 16, range(1, 21)),
    ("B, S, D = x.shape; view(B * S, D): 2 x seq", ReadsShape,
     lambda n, d: (torch.randn(2, n, 64, device=d),), 32, range(2, 102)),
    ("seed 000: topk(x, 10, out=) over sizes 100..199", lambda: topk_out,
     lambda n, d: (torch.randn(n, device=d),
                   (torch.empty(10, device=d), torch.empty(10, dtype=torch.long, device=d))),
     150, range(100, 200)),
]


# Real models, at 20 sequence lengths (where transformers is installed).
HF_CASES = [
    ("HF GPT-2 2 layers d=128: 2 x seq", lambda: LastHidden(
        "GPT2Config", "GPT2Model", n_layer=2, n_embd=128, n_head=4, vocab_size=1000,
        n_positions=256), _ids(1000), 32, range(16, 36)),
    ("HF BERT 4 layers d=256: 2 x seq", lambda: LastHidden(
        "BertConfig", "BertModel", num_hidden_layers=4, hidden_size=256,
        num_attention_heads=4, intermediate_size=1024, vocab_size=8000), _ids(8000), 32,
     range(16, 36)),
    ("HF Llama 2 layers d=128: 2 x seq", lambda: LastHidden(
        "LlamaConfig", "LlamaModel", num_hidden_layers=2, hidden_size=128,
        num_attention_heads=4, num_key_value_heads=2, intermediate_size=256,
        vocab_size=1000), _ids(1000), 32, range(16, 36)),
]


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def timed(fn, args, device):
    sync(device)
    t = time.perf_counter()
    out = fn(*args)
    sync(device)
    return out, time.perf_counter() - t


def steady(fn, args, device, reps):
    for _ in range(3):
        fn(*args)
    times = []
    for _ in range(reps):
        _, t = timed(fn, args, device)
        times.append(t)
    return statistics.median(times)


def same(a, b):
    if isinstance(a, torch.Tensor):
        torch.testing.assert_close(a, b, rtol=2e-3, atol=2e-3)
    elif isinstance(a, (tuple, list)):
        for x, y in zip(a, b):
            same(x, y)


def run_case(name, factory, make, steady_n, sizes, device, calls, reps, has_compile):
    model = factory()
    if isinstance(model, nn.Module):
        model = model.to(device).eval()
    sizes = list(sizes)[:calls]
    rows = {}
    variants = [("eager", lambda: model), ("tgc", lambda: tgc.compile(model)),
                ("tgc dyn", lambda: tgc.compile(model, dynamic=True))]
    graphs = [0]
    if has_compile:
        from torch import _dynamo

        def make_compiled(dynamic):
            def counting(gm, example_inputs):
                # Inductor, as torch.compile's default backend, counted.
                from torch._inductor.compile_fx import compile_fx

                graphs[0] += 1
                return compile_fx(gm, example_inputs)

            def build():
                _dynamo.reset()
                graphs[0] = 0
                return torch.compile(model, backend=counting, dynamic=dynamic)
            return build

        variants.append(("torch.compile", make_compiled(None)))
        variants.append(("t.compile dyn", make_compiled(True)))
    ref = model(*make(steady_n, device))
    for label, build in variants:
        fn = build()
        with torch.no_grad():
            args = make(steady_n, device)
            out, first = timed(fn, args, device)
            if out is not None:
                same(out, model(*args))
            st = steady(fn, args, device, reps)
            total = 0.0
            for n in sizes:
                _, t = timed(fn, make(n, device), device)
                total += t
        compiles = "-"
        if label.startswith("tgc"):
            compiles = str(tgc.explain(fn).compiles)
        elif label != "eager":
            compiles = str(graphs[0])
        rows[label] = (first * 1e3, st * 1e6, total * 1e3, compiles)
    del ref
    print(f"\n{name}  [{device}; steady at size {steady_n}; {len(sizes)} calls of sizes "
          f"{sizes[0]}..{sizes[-1]}]")
    print(f"  {'':14} {'first (ms)':>11} {'steady (us)':>12} {'varying (ms)':>13} {'compiles':>9}")
    for label, (f, s, v, c) in rows.items():
        print(f"  {label:14} {f:11.1f} {s:12.1f} {v:13.1f} {c:>9}")
    for mine, others in (("tgc", ("eager", "torch.compile")), ("tgc dyn", ("t.compile dyn",))):
        t = rows[mine]
        for other in others:
            if other in rows:
                o = rows[other]
                print(f"  {mine} speedup vs {other:13}: first {o[0] / t[0]:6.2f}x  steady "
                      f"{o[1] / t[1]:6.2f}x  varying {o[2] / t[2]:6.2f}x")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--only", default="", help="run the cases whose name contains this")
    p.add_argument("--call-path", action="store_true",
                   help="the call path's cost per call (utils/bench/call_path.py) instead")
    p.add_argument("--phases", action="store_true",
                   help="with --call-path: where tgc's native calls spend host time")
    a = p.parse_args()
    # Eager on every hardware thread, as TGC's OpenMP loops (Debian's
    # PyTorch 1.13 starts with one; PyTorch 2.x already uses all).
    torch.set_num_threads(os.cpu_count() or 1)
    if a.call_path:
        import call_path
        call_path.run(a.device, max(a.reps, 100), a.only, a.phases)
        return
    has_compile = hasattr(torch, "compile")
    print(f"PyTorch {torch.__version__}, device {a.device}"
          + (f" ({torch.cuda.get_device_name()})" if a.device == "cuda" else "")
          + ("" if has_compile else "; no torch.compile in this PyTorch"))
    torch.manual_seed(0)
    import importlib.util

    cases = CASES + (HF_CASES if importlib.util.find_spec("transformers") else [])
    for case in cases:
        if a.only and a.only not in case[0]:
            continue
        try:
            run_case(*case, a.device, a.calls, a.reps, has_compile)
        except Exception as e:  # report and go on: one broken case is not the run
            print(f"\n{case[0]}: FAILED: {type(e).__name__}: {str(e).splitlines()[0][:300]}")


if __name__ == "__main__":
    main()
