#!/usr/bin/env python3
"""Whether ResNet-18's gradient difference at batch 6 in dynamic_train.py
(1e-2 of the largest gradient, 1e-6 at every other size) comes from the
dynamic specialization or from the data: the same batch's gradients from
eager, a specialization traced for batch 6, and the dynamic one (traced
at 6 after a call at 8), TF32 off.
python3 utils/device/resnet_batch6.py"""

import copy

import torch

import tgc

import dynamic_train


def grads(model, call, batch, loss_of):
    model.zero_grad(set_to_none=True)
    loss_of(call, *batch).backward()
    return [p.grad.clone() for p in model.parameters()]


def main():
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    model, data, loss_of = dynamic_train._model("resnet18")
    model = model.cuda().train()
    b8 = tuple(x.cuda() for x in data(8))
    b6 = tuple(x.cuda() for x in data(6))
    copies = [copy.deepcopy(model) for _ in range(3)]
    eager, static_m, dyn_m = copies
    static_c = tgc.compile(static_m, dynamic=False)
    dyn_c = tgc.compile(dyn_m)
    # The same running statistics on all three: each sees batch 8 first.
    for m, c in ((eager, eager), (static_m, static_c), (dyn_m, dyn_c)):
        grads(m, c, b8, loss_of)
    ge = grads(eager, eager, b6, loss_of)
    gs = grads(static_m, static_c, b6, loss_of)
    gd = grads(dyn_m, dyn_c, b6, loss_of)
    scale = max(g.abs().max().item() for g in ge)

    def diff(a, b):
        return max((x - y).abs().max().item() for x, y in zip(a, b)) / scale
    print(f"batch 6 gradients, difference / largest gradient: static vs eager {diff(gs, ge):.2e}, "
          f"dynamic vs eager {diff(gd, ge):.2e}, dynamic vs static {diff(gd, gs):.2e}")
    print("dynamic specializations:", [t[:120] for t in tgc.explain(dyn_c).training
                                       if t.startswith("training")])
    # In float64 on the CPU: which of eager and TGC is closer to exact.
    ref = copy.deepcopy(model).double().cpu()
    gr = grads(ref, ref, tuple(x.double().cpu() if x.is_floating_point() else x.cpu()
                               for x in b8), loss_of)
    gr = grads(ref, ref, tuple(x.double().cpu() if x.is_floating_point() else x.cpu()
                               for x in b6), loss_of)
    gr = [g.float().cuda() for g in gr]
    print(f"against float64: eager {diff(ge, gr):.2e}, static {diff(gs, gr):.2e}, "
          f"dynamic {diff(gd, gr):.2e}")


if __name__ == "__main__":
    main()
