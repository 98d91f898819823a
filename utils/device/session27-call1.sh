#!/usr/bin/env bash
# Twenty-seventh session, first GPU-machine call (2026-11-29): a
# convolution's backward compiled as cuDNN's backward-data and
# backward-filter plan steps (tgc.conv2d_backward_input / _weight): the
# CUDA training tests of it, then ResNet-18's training step against eager
# and Inductor with the kernels' split. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_training.py \
   -k "convolution_backward or batchnorm or cnn" 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 360 python3 utils/bench/training.py --models resnet18 --steps 6 --modes eager,tgc,inductor \
  --profile 10 --kernels $OUT/kernels.tsv > $OUT/resnet.txt 2>&1
grep -E "^resnet18 |rror" $OUT/resnet.txt | head -20
