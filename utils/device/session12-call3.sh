#!/usr/bin/env bash
# Twelfth session, third GPU-machine call (2026-11-28): correctness after
# tgc-outline-identical-kernels, MergeFunctions in the JIT and the cheap /
# costly rule for row producers: torch-mlir's e2e suite on CPU tensors and
# the model zoo on the CPU; then the chain and encoder rows again. Carry
# .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
SHARD_S=200 OUT=/tmp/e2e timeout 215 .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
tail -4 $OUT/e2e.txt
timeout 330 python3 utils/zoo/zoo.py --models all --modes default --device cpu > $OUT/zoo-cpu.txt 2>&1
tail -24 $OUT/zoo-cpu.txt
