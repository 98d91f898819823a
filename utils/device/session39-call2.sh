#!/usr/bin/env bash
# Thirty-ninth session, second GPU-machine call: call 1's compile_cache
# run did not finish GPT-2 with 24 layers on the CPU within 200 s (3
# repeats). Where its first call goes, 2 and 24 layers, with a stack dump
# if it is stopped; then the compile_cache row once.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout -s ABRT 150 python3 utils/device/gpt2_deep_probe.py 2 24 2>&1 | grep -v -i warn \
  | tail -60 | tee $OUT/probe.txt
unset TGC_CACHE
timeout 150 python3 utils/bench/compile_cache.py --models cpu-gpt2-24 --no-torch-compile 2>&1 \
  | grep -v -i warn | tee $OUT/compile_cache.txt
