#!/usr/bin/env python3
"""One training step of GPT-2 small under tgc.compile (the model of
utils/bench/training.py), for its traced forward and backward graphs: run
with TGC_LOGS=graph and keep stderr, then compile the graphs here with
`tgc-run --device cuda --compile-only --profile` (no GPU and no
transformers needed) to read the kernels, their strategies and bytes."""

import sys

import tgc

sys.path.insert(0, "utils/bench")
import training  # noqa: E402


def main():
    model, data, loss_of = training._model("gpt2", "cuda", 0)
    model = model.cuda().train()
    data = tuple(d.cuda() for d in data)
    loss_of(tgc.compile(model), *data).backward()


if __name__ == "__main__":
    main()
