#!/usr/bin/env bash
# Thirteenth session, first GPU-machine call (2026-11-28): where a training
# step's time goes (issue 21): ResNet-18 and GPT-2 steps per mode with the
# forward / backward / optimizer split and the kernels with the most device
# time (utils/bench/training.py --profile). Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
nvidia-smi -L
timeout 280 python3 utils/bench/training.py --models resnet18 --steps 6 \
  --modes eager,inductor,tgc --profile 30 2>&1 | tee $OUT/resnet18.txt | grep -v "^ *$" | cut -c1-230
timeout 280 python3 utils/bench/training.py --models gpt2 --steps 6 \
  --modes eager,tgc --profile 30 2>&1 | tee $OUT/gpt2.txt | grep -v "^ *$" | cut -c1-230
