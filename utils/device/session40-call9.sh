#!/usr/bin/env bash
# Fortieth session, ninth GPU-machine call: the review's mends to the
# trace's attention (a mask of another dtype or device, or with is_causal,
# is kept): the CUDA attention tests and the zoo's Hugging Face group on
# CUDA.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
(cd .python-bundle && timeout 60 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  -k "attention" 2>&1 | tail -2)
timeout 150 python3 utils/zoo/zoo.py --models hf --modes default --device cuda 2>&1 \
  | grep -v -i warn | tail -3
