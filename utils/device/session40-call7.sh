#!/usr/bin/env bash
# Fortieth session, seventh GPU-machine call: the probe of calls 4-6 timed
# its own wrapper (replacing torch's attention function changed what the
# tracer saw); it now times the tracer's real calls. Then the change A/B:
# HEAD's tracer ("drop": the trace's attention without a mask of all
# ones) against the one before it (old_core.py, carried), issue 22's rows
# for HF BERT-4 on CUDA (cold and disk, --repeat 3), twice alternating.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
python3 utils/device/sdpa_trace_probe.py --models hf-bert,hf-gpt2 2>&1 | grep -v -i -E "warn|token_id"
for v in drop keep drop keep; do
  if [[ $v == keep ]]; then cp old_core.py .python-bundle/tgc/_ops/core.py
  else cp python/tgc/_ops/core.py .python-bundle/tgc/_ops/core.py; fi
  echo "== $v"
  timeout 120 python3 utils/bench/compile_cache.py --models hf-bert --repeat 3 --no-torch-compile \
    2>&1 | grep -v -i warn | grep "cuda cold"
done
