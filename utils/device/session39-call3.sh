#!/usr/bin/env bash
# Thirty-ninth session, third GPU-machine call: the review mends (device
# indices past 32 bits rejected by the verifier, the glue's hoisted stack
# slots capped at 4 KiB). The CPU's e2e suite and zoo again, and the zoo on
# CUDA (the GPU's guards are verified by the same tgc_guard.device).
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
source utils/device/cpu-conformance.sh
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cuda 2>&1 \
  | grep -v -i warn > $OUT/zoo-cuda.txt; tail -4 $OUT/zoo-cuda.txt
