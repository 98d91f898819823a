#!/usr/bin/env bash
# Eleventh session, third GPU-machine call (2026-11-28): packing B's panels
# (uncommitted experiment on top of 7667dca) against 7667dca's 2-D blocks,
# on the GPU machine's 16-core CPU: matmul rows of issue 25. Carry
# .python-bundle.tar.xz. Result: the commit message / docs/performance.md.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
for i in 1 2; do
  timeout 200 python3 utils/bench/cpu_models.py --python --only matmul512,matmul2048,encoder,convs --repeat 10 2>&1 | tail -4
done | tee $OUT/cpu_python.txt
