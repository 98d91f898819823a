#!/usr/bin/env bash
# Twenty-fourth session, fifth GPU-machine call (2026-11-29): the session's
# changes on CUDA (min-cut partition, checks hoisted past a pad, results
# allocated once, saved tensors pooled): the CUDA tests, GPT-2 small's
# training step against eager, its host time, and its kernel profile.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_partition.py test/test_training.py \
   test/test_native_path.py test/test_dropout.py test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 100 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc \
  2>&1 | grep -E "^gpt2 " | tee $OUT/train.txt
timeout 90 python3 utils/device/train_host.py > $OUT/host.txt 2>&1
grep -E "^host|^native|^forward|^backward" $OUT/host.txt
timeout 90 python3 utils/bench/training.py --models gpt2 --steps 4 --modes tgc --profile 50 \
  > $OUT/profile.txt 2>&1
grep -E "^gpt2 |idle" $OUT/profile.txt
