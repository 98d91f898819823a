#!/usr/bin/env bash
# Seventeenth session, first GPU-machine call (2026-11-28): what stop 43
# left unchecked on a GPU. The runtime's shared library loader (0be0a16)
# through the CUDA tests, and pow's products and the unrolling rule
# (2a248af, 25e75bf) through the whole e2e suite and the whole zoo.
# The e2e suite (CPU tensors) runs in the background while the GPU tests
# and the zoo run. Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
E2E_SHARD_S=230 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
export TGC_CACHE=0
(cd .python-bundle && timeout 260 python3 -m pytest -q test/test_gpu.py test/test_native_path.py \
   test/test_cache.py -k "cuda or gpu or Gpu or native" 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 220 python3 utils/zoo/zoo.py --models all --modes default --device cuda 2>&1 \
  | grep -v -i warn > $OUT/zoo.txt; tail -25 $OUT/zoo.txt
wait $e2e
cat $OUT/e2e-summary.txt | head -30
