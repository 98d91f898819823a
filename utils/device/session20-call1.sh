#!/usr/bin/env bash
# Twentieth session, first GPU-machine call (2026-11-29): dropout outside
# training graphs (a seed drawn per call), its feature / alpha / attention
# forms and torch.compile(backend="tgc")'s forward graphs, on CUDA; then
# where GPT-2's training step spends its time (device busy against the
# step's span, the top kernels). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_dropout.py test/test_training.py \
   test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 280 python3 utils/bench/training.py --models gpt2 --steps 5 --modes eager,tgc --profile 45 \
  > $OUT/gpt2-profile.txt 2>&1
grep -v -i warn $OUT/gpt2-profile.txt | grep -E "busy|forward|step|first|ms " | head -30
