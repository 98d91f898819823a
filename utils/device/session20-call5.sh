#!/usr/bin/env bash
# Twentieth session, fifth GPU-machine call (2026-11-29): row kernels over
# static rows of at least 16384 elements at 1024 threads (the default now)
# against 128 (long-row-block-size=0) and eager; the CUDA tests; GPT-2's
# training step. (A first run of this call timed row-block-size=128..1024
# on the previous bundle: 1024 was fastest on long rows and a two-input
# backward at 1024 threads failed to launch, which the register budget
# of RowKernels.cpp now prevents.) Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 200 python3 utils/bench/long_rows.py --options long-row-block-size=0 2>&1 | grep -v -i warn
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_gpu.py test/test_training.py 2>&1) \
  > $OUT/pytest.txt
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc --profile 12 \
  > $OUT/gpt2.txt 2>&1
grep -v -i warn $OUT/gpt2.txt | grep -E "busy|step|rows" | head -12
