#!/usr/bin/env bash
# Twenty-fifth session, second GPU-machine call (2026-11-29): the zoo on CUDA
# with tgc-sink-gathers and the previous session's partition, and GPT-2 small's
# training kernel profile (the log-softmax kernels after decomposition).
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 280 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" $OUT/zoo.txt | grep -v -i warn | tail -25
timeout 120 python3 utils/bench/training.py --models gpt2 --steps 4 --modes tgc,inductor --profile 60 \
  > $OUT/profile.txt 2>&1
grep -E "^gpt2 |idle" $OUT/profile.txt
