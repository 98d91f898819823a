#!/usr/bin/env python3
"""The launch steps and kernel code of GPT-2 small's compiled training
graphs (forward and backward of `tgc.compile(model)`, the model of
utils/bench/training.py): writes the steps and kernel list of each to $OUT and
prints the steps of the kernels named on the command line. (What a kernel
computes: run the traced graphs, `TGC_LOGS=graph`, session23-call6.sh,
through `tgc-opt --tgc-gpu-pipeline` here.)"""

import os
import sys

import tgc

sys.path.insert(0, "utils/bench")
import training  # noqa: E402


def main():
    out = os.environ.get("OUT", "/tmp")
    model, data, loss_of = training._model("gpt2", "cuda", 0)
    model = model.cuda().train()
    data = tuple(d.cuda() for d in data)
    c = tgc.compile(model)
    loss_of(c, *data).backward()
    spec = c._training.specs[0]
    for name, fn in (("forward", spec.forward), ("backward", spec.backward)):
        compiled = fn.specs[0].compiled
        steps = compiled.code("steps")
        with open(f"{out}/{name}-steps.txt", "w") as f:
            f.write(steps)
        with open(f"{out}/{name}-kernels.mlir", "w") as f:
            f.write(compiled.code("kernels"))
        for line in steps.splitlines():
            if any(k in line for k in sys.argv[1:]):
                print(name, line[:300])


if __name__ == "__main__":
    main()
