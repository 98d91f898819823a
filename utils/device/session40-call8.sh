#!/usr/bin/env bash
# Fortieth session, eighth GPU-machine call: the trace's attention also
# runs a bool causal triangle as is_causal=True (call 7's probe: GPT-2-2's
# first traced attention 41 ms, its masked kernel). The CUDA attention
# tests, the probe, and HF GPT-2-2's compile rows, HEAD against the tracer
# before the change (old_core.py, carried).
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
(cd .python-bundle && timeout 120 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  -k "attention" 2>&1 | tail -3)
python3 utils/device/sdpa_trace_probe.py --models hf-bert,hf-gpt2,hf-llama 2>&1 | grep -v -i -E "warn|token_id"
for v in plain masked; do
  if [[ $v == masked ]]; then cp old_core.py .python-bundle/tgc/_ops/core.py
  else cp python/tgc/_ops/core.py .python-bundle/tgc/_ops/core.py; fi
  echo "== $v"
  timeout 100 python3 utils/bench/compile_cache.py --models gpt2-2 --repeat 3 --no-torch-compile \
    2>&1 | grep -v -i warn | grep "cuda cold"
done
