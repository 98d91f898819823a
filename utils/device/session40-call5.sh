#!/usr/bin/env bash
# Fortieth session, fifth GPU-machine call: the trace's eager attention
# on CUDA without a mask that passes everything (tgc._ops.core._eager_call).
# Its CUDA test and the attention tests, call 4's probe again (each real
# attention call of the trace), and issue 22's compile rows for HF BERT-4
# and GPT-2-2 on CUDA (cold and disk; --repeat 3).
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
(cd .python-bundle && timeout 200 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  -k "attention" 2>&1 | tail -3)
python3 utils/device/sdpa_trace_probe.py --models hf-bert,hf-gpt2 2>&1 | grep -v -i -E "warn|token_id"
timeout 300 python3 utils/bench/compile_cache.py --models hf-bert,gpt2-2 --repeat 3 \
  --no-torch-compile 2>&1 | grep -v -i warn | tee $OUT/compile_cache.txt
