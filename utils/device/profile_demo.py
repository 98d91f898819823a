#!/usr/bin/env python3
"""tgc.profile on the GPU for docs/explain.md and docs/performance.md: a
pre-norm transformer block (f32 and bf16) and, where transformers is
installed, HF GPT-2 small from its config (random weights). Prints each
profile; run with the Python bundle on PYTHONPATH."""

import os

import torch

import tgc


class Block(torch.nn.Module):
    def __init__(self, d=768, heads=12):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


def show(title, compiled, *args):
    with torch.no_grad():
        p = tgc.profile(compiled, *args, repeat=20)
    print(f"== {title}")
    print(p)
    print()


def main():
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16):
        m = Block().cuda().to(dtype).eval()
        c = tgc.compile(m)
        x = torch.randn(8, 512, 768, device="cuda", dtype=dtype)
        show(f"Block 8x512x768 {dtype}", c, x)
        if dtype == torch.bfloat16 and os.environ.get("OUT"):
            # The compile report with the profile, for docs/images.
            tgc.explain(c).save_html(os.path.join(os.environ["OUT"], "report_block.html"))
    # Memory-bound anchors: elementwise and softmax rows.
    x = torch.randn(4096, 4096, device="cuda")
    y = torch.randn(4096, 4096, device="cuda")
    show("relu(x + y) * 2, 4096^2 f32", tgc.compile(lambda a, b: torch.relu(a + b) * 2), x, y)
    s = torch.randn(8192, 1024, device="cuda")
    show("softmax 8192x1024 f32", tgc.compile(lambda a: torch.softmax(a, -1)), s)
    try:
        import transformers
    except ImportError:
        return
    cfg = transformers.GPT2Config(n_layer=12, n_embd=768, n_head=12)
    gpt = transformers.GPT2Model(cfg).cuda().eval()
    ids = torch.randint(0, cfg.vocab_size, (8, 256), device="cuda")
    c = tgc.compile(gpt)
    with torch.no_grad():
        ref = gpt(ids).last_hidden_state
        p = tgc.profile(c, ids, repeat=10)
    err = (p.result.last_hidden_state - ref).abs().max().item()
    print(f"== HF GPT-2 small 8x256 f32 (max abs err vs eager {err:.2e})")
    # The 12 layers' steps, summed by strategy.
    by = {}
    for s in p.steps:
        t = by.setdefault(s.strategy, [0, 0.0, 0])
        t[0] += 1
        t[1] += s.ms or 0.0
        t[2] += s.bytes or 0
    for strategy, (n, ms, b) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        print(f"  {strategy:24s} {n:4d} steps  {ms:8.3f} ms  {b / (ms * 1e6) if ms else 0:7.0f} GB/s")
    print(f"  call {p.call_ms:.3f} ms over {len(p.regions)} region(s)")


if __name__ == "__main__":
    main()
