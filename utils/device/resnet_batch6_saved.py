#!/usr/bin/env python3
"""Is ResNet-18's batch-6 gradient difference on CUDA (1.1e-2 of the
largest gradient against eager, utils/device/resnet_batch6.py) a wrong
answer or a rounding difference that a ReLU or max-pool turned into a
different mask? The compiled forward's and backward's graph modules are
captured; the FX graphs run on copies of the same inputs (eager kernels)
give the reference for each compiled graph alone:
- the compiled forward's outputs against its FX graph's, per output;
- the compiled backward's outputs against its FX graph's on the same
  saved tensors (a wrong backward shows here);
- the FX backward on the compiled forward's saved tensors against eager,
  and each saved tensor swapped for the FX forward's, to find the one
  that carries the difference, and where in it the two differ.
TF32 off. python3 utils/device/resnet_batch6_saved.py [batch]"""

import copy
import sys

import torch

import tgc
import tgc.fx as FX
from tgc._autograd import State

import dynamic_train

_orig = FX.compile_graph_module
_seen = {}


class _Capture:
    """A compiled graph module that also runs its FX graph on copies of
    the same inputs."""

    def __init__(self, gm, kw, which):
        self.__dict__.update(gm=gm, c=_orig(gm, **kw), which=which)

    def __getattr__(self, k):
        return getattr(self.__dict__["c"], k)

    def __setattr__(self, k, v):
        setattr(self.__dict__["c"], k, v)

    def __call__(self, *a):
        clones = [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in a]
        got = self.c(*a)
        snap = [o.detach().clone() if isinstance(o, torch.Tensor) else o for o in got]
        _seen[self.which] = dict(gm=self.gm, args=clones, tgc=snap)
        return got


_count = [0]


def _pick(gm, **kw):
    _count[0] += 1
    return _Capture(gm, kw, "fw" if _count[0] == 1 else "bw")


def _rel(a, b):
    scale = b.abs().max().item() or 1.0
    return (a - b).abs().max().item() / scale


def main():
    batch = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    model, data, loss_of = dynamic_train._model("resnet18")
    model = model.cuda().train()
    # The batch resnet_batch6.py saw: data(8) is drawn first from the same
    # generator.
    data(8)
    x, y = (t.cuda() for t in data(batch))
    ref = copy.deepcopy(model)
    FX.compile_graph_module = _pick
    c = tgc.compile(model, dynamic=False)
    loss_of(c, x, y).backward()
    loss_of(ref, x, y).backward()
    FX.compile_graph_module = _orig
    names = {id(p): n for n, p in model.named_parameters()}
    eager = dict(ref.named_parameters())
    state = State.of([model])
    # The backward's outputs are the gradients of the flat inputs: x, then
    # the state tensors.
    slots = [(i + 1, names[id(t)]) for i, t in enumerate(state.tensors) if id(t) in names]
    scale = max(eager[n].grad.abs().max().item() for _, n in slots)

    def err(outs):
        return max((outs[i] - eager[n].grad).abs().max().item() for i, n in slots) / scale

    print(f"batch {batch}: TGC gradients vs eager {err([None] + _grads(model, state)):.2e}")
    fw, bw = _seen["fw"], _seen["bw"]
    fx_fw = [o.detach() if isinstance(o, torch.Tensor) else o for o in fw["gm"](*fw["args"])]
    print("forward outputs, compiled vs FX (largest relative differences):")
    rows = []
    for k, (a, b) in enumerate(zip(fw["tgc"], fx_fw)):
        if isinstance(a, torch.Tensor) and a.is_floating_point() and a.numel():
            rows.append((_rel(a.float(), b.float()), k, tuple(a.shape)))
        elif isinstance(a, torch.Tensor) and not torch.equal(a, b):
            rows.append((float((a != b).sum().item()), k, ("differing elements", a.dtype)))
    for r in sorted(rows, reverse=True)[:8]:
        print("  ", r)
    bw_fx = bw["gm"](*bw["args"])
    worst = max((_rel(a, b), i) for i, (a, b) in enumerate(zip(bw["tgc"], bw_fx))
                if isinstance(a, torch.Tensor))
    print(f"backward outputs, compiled vs FX on the same saved tensors: {worst[0]:.2e} (output {worst[1]})")
    print(f"FX backward on the compiled backward's inputs vs eager: {err(bw_fx):.2e}")
    spec = c._training.specs[0]
    first = len(spec.differentiable) + len(spec.mutated)
    # The backward's leading inputs are the forward's saved outputs (the
    # tangents come last).
    saved_t = fw["tgc"][first:]
    saved_f = fx_fw[first:]
    tail = len(bw["args"]) - len(saved_t)
    print(f"{len(saved_t)} saved, {tail} other backward inputs")
    args = list(bw["args"])
    swapped = list(args)
    for k, s in enumerate(saved_f):
        swapped[k] = s
    print(f"FX backward, every saved tensor from the FX forward, vs eager: {err(bw['gm'](*swapped)):.2e}")
    ph = [n for n in bw["gm"].graph.nodes if n.op == "placeholder"]
    fixes = []
    for k, s in enumerate(saved_f):
        if isinstance(s, torch.Tensor) and not torch.equal(args[k], s):
            a3 = list(args)
            a3[k] = s
            fixes.append((err(bw["gm"](*a3)), k, ph[k].name, tuple(s.shape)))
    _exactness(fw, bw, first, copy.deepcopy(ref), x, y, slots)
    fixes.sort()
    print("single swaps, error after:", fixes[:5])
    if fixes:
        k = fixes[0][1]
        a, b = args[k], saved_f[k]
        d = (a.float() - b.float()).abs()
        print(f"saved {ph[k].name}: {int((d > 0).sum())} of {d.numel()} differ, largest {d.max().item():.3e} "
              f"(largest value {b.abs().max().item():.3e})")
        flips = ((a == 0) != (b == 0)).nonzero().tolist()[:10]
        print(f"zero-mask flips: {int(((a == 0) != (b == 0)).sum())}")
        for i in flips:
            print("   at", i, "compiled", a[tuple(i)].item(), "FX", b[tuple(i)].item())
        top = d.flatten().topk(5)
        for v, i in zip(top.values.tolist(), top.indices.tolist()):
            print(f"   flat {i}: compiled {a.flatten()[i].item():.6e} FX {b.flatten()[i].item():.6e}")


def _exactness(fw, bw, first, model, x, y, slots):
    """The FX forward and backward graphs in float64 against eager in
    float64: a wrong graph differs there too; a rounding difference that a
    mask turned into a large one does not."""
    def dbl(t):
        return t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t

    outs = fw["gm"](*[dbl(a) for a in fw["args"]])
    logits = outs[0].detach().requires_grad_()
    torch.nn.functional.cross_entropy(logits, y).backward()
    saved = [dbl(o) for o in outs[first:]]
    got = bw["gm"](*(saved + [logits.grad]))
    ref = copy.deepcopy(model).double()
    ref.zero_grad(set_to_none=True)
    torch.nn.functional.cross_entropy(ref(x.double()), y).backward()
    params = dict(ref.named_parameters())
    scale = max(params[n].grad.abs().max().item() for _, n in slots)
    worst = max((got[i] - params[n].grad).abs().max().item() for i, n in slots) / scale
    print(f"float64: the FX graphs vs eager {worst:.2e} of the largest gradient")


def _grads(model, state):
    return [t.grad if isinstance(t, torch.nn.Parameter) else None for t in state.tensors]


if __name__ == "__main__":
    main()
