#!/usr/bin/env bash
# Twenty-fourth session, sixth GPU-machine call (2026-11-29): log_softmax
# decomposed for training and tgc-sink-gathers: torch-mlir's e2e suite
# (the pass runs on every graph), the CUDA training tests and the gather
# and loss tests of test_gpu.py, and GPT-2 small's training step against
# eager. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=130 bash utils/device/e2e.sh  # (a call returns at most 8 files)
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
(cd .python-bundle && timeout 100 python3 -m pytest -q test/test_partition.py test/test_training.py \
   test/test_dropout.py 2>&1; timeout 60 python3 -m pytest -q test/test_gpu.py \
   -k "gather or loss or entropy or nll or softmax or embedding" 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 100 python3 utils/bench/training.py --models gpt2 --steps 6 --modes eager,tgc \
  2>&1 | grep -E "^gpt2 " | tee $OUT/train.txt
