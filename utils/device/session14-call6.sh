#!/usr/bin/env bash
# Fourteenth session, sixth GPU-machine call (2026-11-28): convolution
# epilogues (tgc-fuse's `convolution` groups: bias, residual and ReLU in
# one kernel): the CUDA tests, the zoo on CUDA, vision inference and the
# ResNet-18 training step. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_gpu.py \
  test/test_convolution.py 2>&1) > $OUT/pytest.txt; tail -2 $OUT/pytest.txt
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cuda \
  > $OUT/zoo-cuda.txt 2>&1
grep -E "runs:|wrong|error" $OUT/zoo-cuda.txt | tail -5
timeout 120 python3 utils/bench/vision_inference.py --models resnet18,resnet50 --modes eager,tgc \
  2>&1 | grep -v Warning | tee $OUT/vision.txt
timeout 120 python3 utils/bench/training.py --models resnet18 --steps 6 --modes eager,tgc \
  2>&1 | grep -v "^ *$" | tee $OUT/resnet18.txt | cut -c1-200
