#!/usr/bin/env python3
"""What the backward saves, and what it costs: one tgc.compile training
step (forward and backward) of a GPT-like model with the min-cut partition
(docs/training.md, "What the backward saves") against the partition that
saves every forward value the backward reads (`recompute=False`), in one
process, alternating runs.

    python3 utils/bench/partition.py [--device cpu] [--layers 4] [--width 128]
                                     [--vocab 2000] [--batch 8] [--seq 64] [--runs 3]

Prints per run and partition: the median step time of 15 steps after 3
warm ones, the number of saved tensors and their bytes. Dropout is off
(eval mode) so that both do the same work.
"""

import argparse
import functools
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from tgc import _autograd, _partition


class Block(nn.Module):
    def __init__(self, d, heads=4):
        super().__init__()
        self.ln1, self.qkv, self.proj = nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln2, self.fc, self.out = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, 2)
        q, k, v = (y.view(b, t, self.heads, c // self.heads).transpose(1, 2) for y in (q, k, v))
        w = q @ k.transpose(-1, -2) / math.sqrt(c // self.heads)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        w = torch.where(mask, w, torch.tensor(torch.finfo(w.dtype).min, device=x.device))
        x = x + self.proj((w.softmax(-1) @ v).transpose(1, 2).reshape(b, t, c))
        h = self.fc(self.ln2(x))  # GPT-2's tanh GELU, in pointwise ops
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h ** 3)))
        return x + self.out(h)


class Model(nn.Module):
    def __init__(self, layers, d, vocab):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.Sequential(*[Block(d) for _ in range(layers)])
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        logits = self.head(self.blocks(self.emb(ids)))
        return F.cross_entropy(logits.flatten(0, 1), ids.flatten())


def run(recompute, a):
    saved = _autograd.partition
    _autograd.partition = functools.partial(_partition.partition, recompute=recompute)
    try:
        torch.manual_seed(0)
        m = Model(a.layers, a.width, a.vocab).to(a.device).eval()
        ids = torch.randint(0, a.vocab, (a.batch, a.seq), device=a.device)
        c = tgc.compile(m)
        for _ in range(3):
            c(ids).backward()
        times = []
        for _ in range(15):
            if a.device == "cuda":
                torch.cuda.synchronize()
            t = time.perf_counter()
            c(ids).backward()
            if a.device == "cuda":
                torch.cuda.synchronize()
            times.append(time.perf_counter() - t)
        times.sort()
        spec = c._training.specs[0]
        placeholders = [n for n in spec.backward_graph.graph.nodes if n.op == "placeholder"]
        nbytes = sum(_partition.size_of(n) or 0 for n in placeholders[:spec.num_saved])
        return times[len(times) // 2] * 1e3, spec.num_saved, nbytes
    finally:
        _autograd.partition = saved


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--vocab", type=int, default=2000)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    for r in range(a.runs):
        for name, recompute in (("save-all", False), ("min-cut", True)):
            ms, n, nbytes = run(recompute, a)
            print(f"run {r}  {name:9s} step {ms:8.2f} ms  saved {n:4d} tensors "
                  f"{nbytes / 2**20:8.2f} MiB", flush=True)


if __name__ == "__main__":
    main()
