#!/usr/bin/env bash
# Twenty-sixth session, sixth GPU-machine call (2026-11-29): pooled saved
# tensors' views made after the forward has issued its kernels (the
# runtime only needs their addresses): the CUDA partition and training
# tests, and GPT-2 small's training step against the previous calls'
# 84.37 ms (Inductor 83.63). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 60 python3 -m pytest -q -x test/test_partition.py 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
timeout 110 python3 utils/bench/training.py --models gpt2 --steps 8 --modes tgc \
  --profile 6 > $OUT/gpt2.txt 2>&1
grep -E "^gpt2 |idle " $OUT/gpt2.txt | head -8
