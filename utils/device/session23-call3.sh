#!/usr/bin/env bash
# Twenty-third session, third GPU-machine call (2026-11-29): where GPT-2
# small's training step spends device time under eager, Inductor and
# tgc.compile (the 45 kernels with the most device time each), to pick the
# next kernel work. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 400 python3 utils/bench/training.py --models gpt2 --steps 4 --modes eager,tgc,inductor \
  --profile 45 > $OUT/train.txt 2>&1
grep -E "^gpt2 " $OUT/train.txt
