#!/usr/bin/env bash
# Sixteenth session, last GPU-machine call (2026-11-28): elementwise kernels
# with transcendental bodies not unrolled: the CUDA tests, the GELU models'
# results, and BERT's and ConvNeXt's cold compiles. Carry
# .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
(cd .python-bundle && TGC_CACHE=0 timeout 100 python3 -m pytest -q -x test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
TGC_CACHE=0 timeout 60 python3 utils/zoo/zoo.py --models hf-gpt2,hf-bert,tv-convnext-tiny \
  --modes default --device cuda 2>&1 | grep -v -i -E "warn|transformers" | tail -4
timeout 60 python3 utils/bench/compile_cache.py --models hf-bert,tv-convnext-tiny \
  --no-torch-compile 2>&1 | grep -v -i -E "warn|transformers" | tail -4
