#!/usr/bin/env bash
# Seventeenth session, fifth GPU-machine call (2026-11-28): the candidate
# timing shared by cuBLASLt's algorithms and cuDNN's engine plans
# (GpuFunction::Impl::fastestCandidate): the CUDA tests, the cache test that
# reuses both libraries' choices, and the zoo's convolutional and
# transformer models on CUDA. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
(cd .python-bundle && TGC_CACHE=0 timeout 150 python3 -m pytest -q test/test_gpu.py 2>&1 \
   && timeout 120 python3 -m pytest -q test/test_cache.py -k cuda 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
TGC_CACHE=0 timeout 150 python3 utils/zoo/zoo.py --models tv-resnet18,tv-convnext-tiny,hf-bert,hf-gpt2 \
  --modes default --device cuda 2>&1 | grep -v -i warn | tail -5
