#!/usr/bin/env bash
# Twenty-first session, second GPU-machine call (2026-11-29): the optimizer
# step again after call 1 (session21-call1.sh) showed 2.35 ms of host time
# per compiled step (148 launches and the guards of 593 arguments): the
# step's kernels now replay as one CUDA graph by default, its numbers stay
# at one address, and guard messages are built on failure only. The CUDA
# tests, the optimizer bench (eager, fused, Inductor, tgc), GPT-2's and
# ResNet-18's training steps with the step compiled. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_optim.py test/test_formulas.py \
   test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 200 python3 utils/bench/optimizer.py --models gpt2,resnet18 --steps 30 \
  > $OUT/optimizer.txt 2>&1
grep -v -i warn $OUT/optimizer.txt | tail -16
timeout 170 python3 utils/bench/training.py --models gpt2,resnet18 --steps 8 --modes eager,tgc \
  --optimizer compiled > $OUT/train-compiled.txt 2>&1
grep -v -i warn $OUT/train-compiled.txt | grep -E "first|vs eager|Error|error" | head -20
