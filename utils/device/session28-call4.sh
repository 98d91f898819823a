#!/usr/bin/env bash
# Twenty-eighth session, fourth GPU-machine call: the dynamic training
# trace with the Python dispatcher in its fake run (matmul and cross
# entropy made the batch size static without it): the dynamic tests, and
# real models' gradients at the same weights for each batch size, then
# with SGD steps. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_training_dynamic.py 2>&1) \
  > $OUT/pytest-dynamic.txt
tail -1 $OUT/pytest-dynamic.txt; grep -E "^FAILED|^E  " $OUT/pytest-dynamic.txt | \
  grep -E "FAILED|made static|dynamic trace failed|assert " | cut -c1-700 | head -20
timeout 200 python3 utils/device/dynamic_train.py --models resnet18,gpt2,llama \
  > $OUT/dynamic_train.txt 2>&1
grep -E "step|specialization|made static|failed|batch 8 step|FAILED" \
  $OUT/dynamic_train.txt | cut -c1-300 | head -60
timeout 100 python3 utils/device/dynamic_train.py --models gpt2 --train \
  > $OUT/dynamic_train_sgd.txt 2>&1
grep -E "^gpt2" $OUT/dynamic_train_sgd.txt | cut -c1-300
