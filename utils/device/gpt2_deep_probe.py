"""Where HF GPT-2's first call goes on the CPU, 2 and 24 layers (d=256),
phase by phase (issue 22): `TGC_LOGS=compile_time` on, a stack dump if
the process is stopped with SIGABRT (run it under `timeout -s ABRT`)."""
import faulthandler
import sys
import time

faulthandler.enable()
import torch
import transformers

import tgc

for layers in [int(n) for n in sys.argv[1:]] or [2, 24]:
    cfg = transformers.GPT2Config(n_layer=layers, n_embd=256, n_head=4, vocab_size=1000,
                                  n_positions=256)
    torch.manual_seed(0)
    model = transformers.GPT2Model(cfg).eval()
    ids = torch.randint(0, 1000, (2, 64))
    t = time.perf_counter()
    with torch.no_grad():
        want = model(ids).last_hidden_state
    eager = time.perf_counter() - t
    f = tgc.compile(model)
    t = time.perf_counter()
    with torch.no_grad():
        got = f(ids).last_hidden_state
    first = time.perf_counter() - t
    e = tgc.explain(f)
    print(f"{layers} layers: eager {eager * 1e3:.1f} ms, first call {first * 1e3:.1f} ms, "
          f"compiles {e.compiles}, max err {(got - want).abs().max().item():.2e}", flush=True)
    print("  phases:", [(n, round(v, 1)) for s in e.specializations for n, v in s.phases],
          flush=True)
