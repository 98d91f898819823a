#!/usr/bin/env python3
"""Where the HF models of the call-path bench (BERT, GPT-2, Llama; 4 layers,
d=256, batch 8 x 128, f32, eval) spend device time: tgc.profile of the
compiled call (each kernel and GEMM alone), then torch.profiler's CUDA
kernel table of Inductor's compiled model over 10 calls. Run with the
Python bundle on PYTHONPATH on the GPU machine."""

import sys

import torch

import tgc

sys.path.insert(0, "utils/bench")
from python_bench import LastHidden  # noqa: E402

MODELS = {
    "bert": ("BertConfig", "BertModel", dict(num_hidden_layers=4, hidden_size=256,
             num_attention_heads=4, intermediate_size=1024, vocab_size=8000)),
    "gpt2": ("GPT2Config", "GPT2Model", dict(n_layer=4, n_embd=256, n_head=4,
             vocab_size=8000, n_positions=256)),
    "llama": ("LlamaConfig", "LlamaModel", dict(num_hidden_layers=4, hidden_size=256,
              num_attention_heads=4, num_key_value_heads=2, intermediate_size=512,
              vocab_size=8000)),
}


def kernel_table(fn, ids, calls=10, rows=25):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn(ids)
        torch.cuda.synchronize()
    total = sum(e.self_device_time_total for e in prof.key_averages()) / calls
    print(f"   device time per call: {total:.1f} us")
    print(prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=rows,
                                    max_name_column_width=70))


def main():
    # --tgc-only: TGC's tables alone (Inductor's and eager's do not change
    # with TGC's code).
    tgc_only = "--tgc-only" in sys.argv
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(MODELS)
    for name in names:
        cfg, cls, kw = MODELS[name]
        torch.manual_seed(0)
        m = LastHidden(cfg, cls, **kw).cuda().eval()
        ids = torch.randint(0, 8000, (8, 128), device="cuda")
        with torch.no_grad():
            c = tgc.compile(m)
            c(ids)
            print(f"== {name}: tgc.profile")
            print(tgc.profile(c, ids, repeat=20))
            print(f"== {name}: tgc, torch.profiler")
            kernel_table(c, ids)
            if tgc_only:
                continue
            ind = torch.compile(m)
            for _ in range(3):
                ind(ids)
            print(f"== {name}: Inductor default, torch.profiler")
            kernel_table(ind, ids)
            print(f"== {name}: eager, torch.profiler")
            kernel_table(m, ids, rows=12)


if __name__ == "__main__":
    main()
