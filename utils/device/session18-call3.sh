#!/usr/bin/env bash
# Eighteenth session, third GPU-machine call (2026-11-28): the JIT's entry
# inlined into its C interface by prepareEntryFunctions (7c26969) and rsqrt
# through tgc-math-to-intrinsics (7e4d615), through the whole e2e suite on
# CPU tensors and the zoo's CPU subset of call 1. Carry
# .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
E2E_SHARD_S=230 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
export TGC_CACHE=0
timeout 200 python3 utils/zoo/zoo.py --models hf-gpt2,hf-bert,hf-llama,hf-t5,tv-resnet18,tv-mobilenet-v3 \
  --modes default --device cpu 2>&1 | grep -v -i warn > $OUT/zoo.txt; tail -8 $OUT/zoo.txt
wait $e2e
head -12 $OUT/e2e-summary.txt
