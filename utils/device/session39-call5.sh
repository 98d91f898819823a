#!/usr/bin/env bash
# Thirty-ninth session, fifth GPU-machine call: the kernels' unused
# parameters removed before the JIT splits the module (every CPU compile's
# glue and kernel signatures change): the CPU's e2e suite and zoo; then
# HF GPT-2's cold compile on the CPU by JIT part, 2 and 24 layers, and the
# compile-cache rows of the 6-block stack and GPT-2 with 2 and 24 layers.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
source utils/device/cpu-conformance.sh
TGC_CACHE=0 TGC_JIT_PARTS=1 timeout -s ABRT 120 python3 utils/device/gpt2_deep_probe.py 2 24 2>&1 \
  | grep -v -i -E "warn|bos_token|eos_token" | grep -E "glue|layers|phases" | cut -c1-260 \
  | tee $OUT/probe.txt
timeout 150 python3 utils/bench/compile_cache.py --models cpu-stack,cpu-gpt2-2,cpu-gpt2-24 \
  --no-torch-compile 2>&1 | grep -v -i warn | tee $OUT/compile_cache.txt
