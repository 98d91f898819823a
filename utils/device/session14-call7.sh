#!/usr/bin/env bash
# Fourteenth session, seventh GPU-machine call (2026-11-28): the GPU's
# im2col reads a padded convolution's input in place (tgc-to-linalg's
# im2col-pads): the CUDA tests, the zoo on CUDA and vision inference.
# Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|Error" $OUT/pytest.txt | head -5
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cuda \
  > $OUT/zoo-cuda.txt 2>&1
grep -E "^tv-|^cnn|runs:|wrong|error" $OUT/zoo-cuda.txt | tail -12
timeout 120 python3 utils/bench/vision_inference.py --models resnet18,resnet50 --modes eager,tgc \
  2>&1 | grep -v Warning | tee $OUT/vision.txt
