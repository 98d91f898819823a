#!/usr/bin/env bash
# Tenth session, third GPU call: correctness after the session's changes
# (kernel dedup, the attention's bf16 probabilities, the cache). Carry
# .python-bundle.tar.xz and .e2e (a copy of ../shared/e2e).
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
# torch-mlir's e2e suite (CPU tensors), in the background.
(SHARD_S=240 OUT=/tmp/e2e timeout 260 .e2e/run.sh tgc > $OUT/e2e.txt 2>&1) &
# The model zoo on the GPU, every result compared with eager.
timeout 250 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo.txt 2>&1
tail -30 $OUT/zoo.txt
# The cache tests, fixed for the bundle's OpenMP runtime.
cp python/test/test_cache.py .python-bundle/test/
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_cache.py 2>&1) > $OUT/pytest.txt
tail -5 $OUT/pytest.txt
wait
tail -25 $OUT/e2e.txt
