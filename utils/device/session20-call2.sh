#!/usr/bin/env bash
# Twentieth session, second GPU-machine call (2026-11-29): where GPT-2's
# compiled training step leaves the GPU idle (gaps by the kernels around
# them). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 280 python3 utils/bench/training.py --models gpt2 --steps 4 --modes tgc --profile 25 \
  > $OUT/gpt2-gaps.txt 2>&1
grep -v -i warn $OUT/gpt2-gaps.txt | grep -E "busy|idle|forward|step" | head -30
