#!/usr/bin/env bash
# Sixteenth session, third GPU-machine call (2026-11-28): cuDNN's engine
# choices in the tuning cache and pow's scalar-exponent kernels: the CUDA
# tests of both, the zoo's models they touch, compile and disk-cache times,
# and ptxas' largest GPT-2 kernel. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
(cd .python-bundle && TGC_CACHE=0 timeout 200 python3 -m pytest -q test/test_gpu.py test/test_cache.py \
   test/test_convolution.py "test/test_ops.py::test_pow_scalar_exponent_special_values" 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
TGC_CACHE=0 timeout 120 python3 utils/zoo/zoo.py --models hf-gpt2,hf-bert,tv-convnext-tiny,tv-resnet18 \
  --modes default --device cuda 2>&1 | grep -v -i -E "warn|transformers" | tail -6
timeout 200 python3 utils/bench/compile_cache.py --models hf-bert,tv-convnext-tiny,gpt2-2,gpt2-24 \
  --no-torch-compile 2>&1 | grep -v -i -E "warn|transformers" | tail -16
timeout 60 python3 utils/device/ptxas_probe.py --models hf-gpt2 2>&1 | grep -v -i -E "warn|transformers"
