#!/usr/bin/env bash
# Twenty-fourth session, fourth GPU-machine call (2026-11-29): why GPT-2
# small's training forward call holds the host about as long as its device
# time (call 3: 35 ms): check positions in the plans and the CUDA API
# calls of the step (utils/device/train_host.py), with a call that has
# device-side checks no longer allocating its results twice. Then the
# partition tests on CUDA and the training step against eager.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 200 python3 utils/device/train_host.py > $OUT/host.txt 2>&1
grep -v -i warn $OUT/host.txt | head -75
(cd .python-bundle && timeout 100 python3 -m pytest -q test/test_partition.py test/test_native_path.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 150 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc \
  2>&1 | grep -E "^gpt2 " | tee $OUT/train.txt
