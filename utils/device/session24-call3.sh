#!/usr/bin/env bash
# Twenty-fourth session, third GPU-machine call (2026-11-29): the min-cut
# partition on CUDA (training, partition and dropout tests), GPT-2 small's
# training step against eager, and where its host time goes before the
# forward's first kernel (utils/device/train_host.py).
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_training.py test/test_partition.py \
   test/test_dropout.py test/test_optim.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 150 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc \
  2>&1 | grep -E "^gpt2 " | tee $OUT/train.txt
timeout 150 python3 utils/device/train_host.py > $OUT/host.txt 2>&1
grep -v -i warn $OUT/host.txt | head -60
