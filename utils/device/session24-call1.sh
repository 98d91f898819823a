#!/usr/bin/env bash
# Twenty-fourth session, first GPU-machine call (2026-11-29): what session 23
# could not run on the GPU (exact-type native path, value guards read from
# the source dict, training results built in C, the merged step-issue
# loop): the CUDA tests, torch-mlir's e2e suite, then where GPT-2 small's
# training step spends device time under tgc.compile and Inductor.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 170 python3 -m pytest -q test/test_gpu.py test/test_native_path.py \
   test/test_training.py test/test_optim.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
E2E_SHARD_S=150 bash utils/device/e2e.sh
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 4 --modes tgc,inductor \
  --profile 60 > $OUT/train.txt 2>&1
grep -E "^gpt2 " $OUT/train.txt
