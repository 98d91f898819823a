#!/usr/bin/env bash
# Thirty-fifth session, sixth GPU-machine call, on the bundle of b585a77
# (a last-two-dims transpose that a GEMM reads through a reshape is no
# longer fused): the training and CUDA tests (backward graphs read such
# transposes), the HF zoo on CUDA. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 110 python3 -m pytest -q -p no:cacheprovider test/test_training.py \
  test/test_gpu.py -k "cuda or gpu" 2>&1 | tail -2)
timeout 50 python3 utils/zoo/zoo.py --models hf --modes default --device cuda > $OUT/zoo-hf.txt 2>&1
echo "hf rc=$?"; grep -E "runs:|wrong|MISMATCH|ERROR" $OUT/zoo-hf.txt | head -4
