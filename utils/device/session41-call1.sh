#!/usr/bin/env bash
# Forty-first session, first GPU-machine call: session 40's size-0 changes
# (tgc-empty-reshapes, tgc-form-kernels through casts) were not run on the
# GPU machine: the CPU's e2e suite and zoo, and the zoo on CUDA. Then
# where a CUDA first call's time goes (utils/device/trace_profile.py):
# GPT-2-24 cold, GPT-2-2 cold and from the disk cache.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
source utils/device/cpu-conformance.sh
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cuda 2>&1 \
  | grep -v -i warn > $OUT/zoo-cuda.txt; tail -4 $OUT/zoo-cuda.txt
for m in gpt2-24 gpt2-2; do
  d=$(mktemp -d)
  timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d > $OUT/prof-$m-cold.txt 2>&1
  timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d > $OUT/prof-$m-disk.txt 2>&1
  head -1 $OUT/prof-$m-cold.txt; head -1 $OUT/prof-$m-disk.txt
done
