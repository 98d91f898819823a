#!/usr/bin/env python3
"""Writes the module text of every compile of the call-path bench's
Hugging Face models (BERT, GPT-2, Llama: 4 layers, d=256, batch 8 x 128,
f32, eval; utils/device/model_profile.py's configs) to
$OUT/graph-<model>-<n>.mlir, so that their GPU kernels can be studied with
`tgc-opt --tgc-gpu-pipeline` on the CPU machine, where transformers is
not installed. Run with the Python bundle on PYTHONPATH on the GPU machine:

    OUT=dir python3 utils/device/dump_model_graphs.py [bert gpt2 llama]
"""
import os
import sys

import torch

import tgc
import tgc._capi as capi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_profile import MODELS  # noqa: E402

sys.path.insert(0, "utils/bench")
from python_bench import LastHidden  # noqa: E402

_init = capi.Compiled.__init__
_current = ["model"]
_count = [0]


def _saving_init(self, text, entry, options):
    _count[0] += 1
    path = os.path.join(os.environ.get("OUT", "."), f"graph-{_current[0]}-{_count[0]}.mlir")
    with open(path, "w") as f:
        f.write(f"// entry {entry}, options {options!r}\n")
        f.write(text)
    print(f"dump_model_graphs: wrote {path}", flush=True)
    return _init(self, text, entry, options)


capi.Compiled.__init__ = _saving_init


def main():
    for name in sys.argv[1:] or list(MODELS):
        cfg, cls, kw = MODELS[name]
        _current[0] = name
        torch.manual_seed(0)
        m = LastHidden(cfg, cls, **kw).cuda().eval()
        ids = torch.randint(0, 8000, (8, 128), device="cuda")
        with torch.no_grad():
            tgc.compile(m)(ids)


if __name__ == "__main__":
    main()
