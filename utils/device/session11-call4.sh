#!/usr/bin/env bash
# Eleventh session, fourth GPU-machine call (2026-11-28): correctness after
# the session's CPU changes (register-tiled, blocked, packed products;
# parallel im2col convolutions; pad kernels; serial stack buffers) and the
# slice fix in tgc-to-linalg. Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
# torch-mlir's e2e suite (CPU tensors: the CPU pipeline), in the background.
(SHARD_S=240 OUT=/tmp/e2e timeout 260 .e2e/run.sh tgc > $OUT/e2e.txt 2>&1) &
# The model zoo on the CPU, every result compared with eager.
timeout 250 python3 utils/zoo/zoo.py --models all --modes default --device cpu > $OUT/zoo-cpu.txt 2>&1
tail -30 $OUT/zoo-cpu.txt
wait
tail -25 $OUT/e2e.txt
