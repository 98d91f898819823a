#!/usr/bin/env bash
# Thirty-ninth session, fourth GPU-machine call: tgc-fuse's cycle checks
# by position (the same groups, both pipelines): the CPU's e2e suite and
# zoo, the zoo on CUDA; then which LLVM JIT part HF GPT-2's cold compile
# on the CPU waits for, 2 and 24 layers, on 16 cores (TGC_JIT_PARTS=1).
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
source utils/device/cpu-conformance.sh
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cuda 2>&1 \
  | grep -v -i warn > $OUT/zoo-cuda.txt; tail -4 $OUT/zoo-cuda.txt
TGC_CACHE=0 TGC_JIT_PARTS=1 timeout -s ABRT 120 python3 utils/device/gpt2_deep_probe.py 2 24 2>&1 \
  | grep -v -i -E "warn|bos_token|eos_token" | cut -c1-260 | tee $OUT/probe.txt
