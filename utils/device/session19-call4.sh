#!/usr/bin/env bash
# Nineteenth session, fourth GPU-machine call (2026-11-28): training
# dropout compiled (tgc.philox_uniform and the forward's seed input): the
# CUDA tests, and GPT-2's training step, whose last graph break was
# native_dropout. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_dropout.py test/test_training.py \
   test/test_scatter.py test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 240 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc --breaks 2>&1 \
  | grep -v -i warn | tail -6
