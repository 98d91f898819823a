#!/usr/bin/env bash
# Twenty-fourth session, second GPU-machine call (2026-11-29): the zoo on
# CUDA, then the device-time profile of GPT-2 small's training step under
# tgc.compile and Inductor (call 1's profile did not come back: $OUT held
# more files than a call returns). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 280 python3 utils/zoo/zoo.py --models all --modes default --device cuda > /tmp/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" /tmp/zoo.txt | grep -v -i warn | tail -25
timeout 250 python3 utils/bench/training.py --models gpt2 --steps 4 --modes tgc,inductor \
  --profile 60 > $OUT/train.txt 2>&1
grep -E "^gpt2 " $OUT/train.txt
