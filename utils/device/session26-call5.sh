#!/usr/bin/env bash
# Twenty-sixth session, fifth GPU-machine call (2026-11-29): GPT-2 small's
# training step with this session's changes against Inductor, every
# kernel's time, and the host's time before each step's first kernel.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 300 python3 utils/bench/training.py --models gpt2 --steps 8 --modes tgc,inductor \
  --profile 10 --kernels $OUT/kernels.tsv > $OUT/gpt2.txt 2>&1
grep -E "^gpt2 " $OUT/gpt2.txt
