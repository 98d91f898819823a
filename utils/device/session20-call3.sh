#!/usr/bin/env bash
# Twentieth session, third GPU-machine call (2026-11-29): device-side
# checks of the inputs first (tgc-hoist-checks; a call waits for them
# before its kernels, not after them) and dropout outside training graphs:
# the CUDA tests, GPT-2's training step (idle share and gaps, then eager,
# tgc.compile and the backend side by side). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_gpu.py test/test_dropout.py \
   test/test_training.py test/test_scatter.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 4 --modes tgc --profile 25 \
  > $OUT/gpt2-gaps.txt 2>&1
grep -v -i warn $OUT/gpt2-gaps.txt | grep -E "busy|idle|forward" | head -12
timeout 280 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc,tgc-backend \
  > $OUT/gpt2-step.txt 2>&1
grep -v -i warn $OUT/gpt2-step.txt | tail -6
