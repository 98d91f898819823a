#!/usr/bin/env bash
# Nineteenth session, third GPU-machine call (2026-11-28): the max-pool
# backward as a scatter-add on the GPU (the gather removed) and atomic adds
# for f16, bf16 and i8: the CUDA tests, and ResNet-18's training step
# (its max-pool backward) against eager. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_scatter.py test/test_pooling.py \
   test/test_gpu.py test/test_training.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 200 python3 utils/bench/training.py --models resnet18 --steps 6 --modes eager,tgc --breaks 2>&1 \
  | grep -v -i warn | tail -8
