#!/usr/bin/env bash
# Thirteenth session, third GPU-machine call (2026-11-28): torch-mlir's e2e
# suite (CPU tensors: the CPU pipeline with tgc-lower-strided-copies, the
# max-pool handlers) alone, then the model zoo on the CPU. Carry
# .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
SHARD_S=200 OUT=/tmp/e2e timeout 260 .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
tail -8 $OUT/e2e.txt
timeout 300 python3 utils/zoo/zoo.py --models all --modes default --device cpu > $OUT/zoo.txt 2>&1
tail -26 $OUT/zoo.txt
