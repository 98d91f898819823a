#!/usr/bin/env bash
# Fourteenth session, fourth GPU-machine call (2026-11-28): vision
# inference with TF32 convolutions (utils/bench/vision_inference.py) under
# PyTorch's default flags and with TF32 off. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
for tf32 in default off; do
  timeout 200 python3 utils/bench/vision_inference.py --models resnet18,resnet50 \
    --tf32 $tf32 2>&1 | grep -v Warning | tee $OUT/vision-$tf32.txt
done
