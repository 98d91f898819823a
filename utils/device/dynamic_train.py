#!/usr/bin/env python3
"""Training real models with a batch size that changes between steps
(issue 21: dynamic batch size, no recompile per size): tgc.compile against
eager on copies of one model, batch by batch (at the same weights unless
--train), on the GPU machine. Prints per
model the largest loss difference over the steps, the training
specializations, the compiles of their forward and backward graphs, and
the median step time of the dynamic specialization against a
specialization traced for one size and against eager.
python3 utils/device/dynamic_train.py [--models gpt2,bert,llama,resnet18] [--device cuda]"""

import argparse
import copy
import statistics
import time

import torch
import torch.nn.functional as F

import tgc

SIZES = [8, 6, 4, 8, 12, 5, 8, 3]


def _model(name):
    g = torch.Generator().manual_seed(0)
    if name == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel

        m = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=256, n_head=4, vocab_size=1000,
                                       n_positions=128, attn_implementation="eager",
                                       resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))

        def data(b):
            ids = torch.randint(0, 1000, (b, 64), generator=g)
            return (ids,)
        return m, data, lambda m, ids: m(input_ids=ids, labels=ids).loss
    if name == "bert":
        from transformers import BertConfig, BertForSequenceClassification

        m = BertForSequenceClassification(BertConfig(
            num_hidden_layers=2, hidden_size=256, num_attention_heads=4,
            intermediate_size=512, vocab_size=1000, num_labels=3,
            attn_implementation="eager", hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0))

        def data(b):
            ids = torch.randint(0, 1000, (b, 48), generator=g)
            att = torch.ones(b, 48, dtype=torch.long)
            att[0, 30:] = 0
            return ids, att, torch.randint(0, 3, (b,), generator=g)
        return m, data, lambda m, ids, att, y: m(input_ids=ids, attention_mask=att,
                                                 labels=y).loss
    if name == "llama":
        from transformers import LlamaConfig, LlamaForCausalLM

        m = LlamaForCausalLM(LlamaConfig(
            num_hidden_layers=2, hidden_size=256, num_attention_heads=4,
            num_key_value_heads=2, intermediate_size=512, vocab_size=1000,
            max_position_embeddings=128, attn_implementation="eager"))

        def data(b):
            ids = torch.randint(0, 1000, (b, 64), generator=g)
            return (ids,)
        return m, data, lambda m, ids: m(input_ids=ids, labels=ids).loss
    if name == "resnet18":
        import torchvision

        m = torchvision.models.resnet18(num_classes=10)

        def data(b):
            return (torch.randn(b, 3, 64, 64, generator=g),
                    torch.randint(0, 10, (b,), generator=g))
        return m, data, lambda m, x, y: F.cross_entropy(m(x), y)
    raise SystemExit(f"unknown model {name}")


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def _step_ms(model_call, opt, loss_of, batch, device, steps=10):
    times = []
    for _ in range(steps + 2):
        _sync(device)
        t0 = time.perf_counter()
        loss = loss_of(model_call, *batch)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        _sync(device)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times[2:])


def run(name, device, train):
    # Dropout off (its masks differ from eager's: another generator) and
    # TF32 off (cuDNN's and TGC's TF32 kernels round differently), so that
    # the losses compare to float32's precision.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    model, data, loss_of = _model(name)
    model = model.to(device).train()
    ref = copy.deepcopy(model)
    mine = copy.deepcopy(model)
    c = tgc.compile(mine, fallback=True)
    opt_ref = torch.optim.SGD(ref.parameters(), lr=0.01)
    opt_mine = torch.optim.SGD(mine.parameters(), lr=0.01)
    worst = 0.0
    t0 = time.perf_counter()
    for step, b in enumerate(SIZES):
        batch = tuple(x.to(device) for x in data(b))
        lr_ = loss_of(ref, *batch)
        lm = loss_of(c, *batch)
        diff = abs(lr_.item() - lm.item()) / max(1.0, abs(lr_.item()))
        worst = max(worst, diff)
        lr_.backward()
        lm.backward()
        diff, scale = 0.0, 0.0
        for p, q in zip(ref.parameters(), mine.parameters()):
            if p.grad is not None and q.grad is not None:
                diff = max(diff, (p.grad - q.grad).abs().max().item())
                scale = max(scale, p.grad.abs().max().item())
        gdiff = diff / max(scale, 1e-12)
        print(f"  {name} step {step} batch {b}: loss {lm.item():.5f} (eager {lr_.item():.5f}), "
              f"largest gradient difference {gdiff:.2e} of the largest gradient", flush=True)
        if train:
            opt_ref.step()
            opt_mine.step()
        opt_ref.zero_grad(set_to_none=True)
        opt_mine.zero_grad(set_to_none=True)
    total = time.perf_counter() - t0
    tr = c._training
    specs = tr.specs if tr is not None else []
    compiles = [(s.forward.explain().compiles, [b.explain().compiles for b in s.backwards.values()])
                for s in specs]
    print(f"{name}: {len(SIZES)} steps over batch sizes {SIZES} in {total:.1f} s; largest "
          f"relative loss difference {worst:.2e}; {len(specs)} training specialization(s); "
          f"forward/backward compiles per specialization {compiles}")
    for line in tgc.explain(c).training:
        print("   ", line[:300])
    for r in tgc.explain(c).recompile_reasons:
        print("    recompile:", r[:300])
    if tr is not None and tr.symbolic_failed:
        print("    dynamic trace failed:", tr.symbolic_failed[:600])
    # The dynamic specialization's speed against one traced for batch 8.
    batch = tuple(x.to(device) for x in data(8))
    dyn = _step_ms(c, opt_mine, loss_of, batch, device)
    static_model = copy.deepcopy(model)
    s = tgc.compile(static_model, fallback=True, dynamic=False)
    opt_s = torch.optim.SGD(static_model.parameters(), lr=0.01)
    stat = _step_ms(s, opt_s, loss_of, batch, device)
    eager = _step_ms(ref, opt_ref, loss_of, batch, device)
    print(f"{name} batch 8 step: dynamic {dyn:.2f} ms, static {stat:.2f} ms, eager {eager:.2f} ms")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="gpt2,bert,llama,resnet18")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--train", action="store_true",
                   help="an SGD step after each batch (by default the weights stay: each "
                        "batch's gradients compare at the same weights)")
    a = p.parse_args()
    for name in a.models.split(","):
        try:
            run(name, a.device, a.train)
        except Exception as e:  # noqa: BLE001 - report and go on
            import traceback

            traceback.print_exc()
            print(f"{name}: FAILED {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
