#!/usr/bin/env python3
"""Runs utils/zoo/zoo.py (its arguments) with every module text that
tgc_compile rejects written to $OUT/failed-<n>.mlir with its error, so that
a compile failure seen on the GPU machine (Hugging Face models exist only
there) can be reproduced with tgc-opt on the CPU machine.

    OUT=dir utils/device/dump_failed_compiles.py --models hf-roberta --modes backend -v
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "zoo"))

import tgc._capi as capi  # noqa: E402

_init = capi.Compiled.__init__
_count = [0]


def _dumping_init(self, text, entry, options):
    try:
        _init(self, text, entry, options)
    except capi.TgcError as e:
        _count[0] += 1
        path = os.path.join(os.environ.get("OUT", "."), f"failed-{_count[0]}.mlir")
        with open(path, "w") as f:
            f.write(f"// entry {entry}, options {options!r}\n")
            f.write("// " + str(e).replace("\n", "\n// ") + "\n")
            f.write(text)
        print(f"dump_failed_compiles: wrote {path}", flush=True)
        raise


capi.Compiled.__init__ = _dumping_init

import zoo  # noqa: E402

sys.exit(zoo.main(sys.argv[1:]))
