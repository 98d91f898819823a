#!/usr/bin/env bash
# Twenty-first session, third GPU-machine call (2026-11-29): where the 2.6-
# 3.2 ms of host time per compiled AdamW step on GPT-2 goes (call 1b:
# PyTorch's fused step is 1.47 ms with a synchronization). Same bundle as
# call 1b. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 250 python3 utils/device/optim_probe.py > $OUT/probe.txt 2>&1
grep -v -i warn $OUT/probe.txt | head -90
