#!/usr/bin/env bash
# Twenty-first session, first GPU-machine call (2026-11-29): the optimizer
# step compiled (tgc.compile(opt.step): one in-place kernel per parameter,
# one overlap guard for all out buffers), addcmul / addcdiv, elementwise
# groups as multi-output kernels. The CUDA tests, then the training step
# of GPT-2 and ResNet-18 with AdamW compiled, and eager with PyTorch's
# fused AdamW for reference. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_optim.py test/test_formulas.py \
   test/test_gpu.py test/test_training.py test/test_dropout.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 240 python3 utils/bench/training.py --models gpt2,resnet18 --steps 6 --modes eager,tgc \
  --optimizer compiled --profile 3 > $OUT/train-compiled.txt 2>&1
grep -v -i warn $OUT/train-compiled.txt | grep -E "first|forward|vs eager|busy|Error|error" | head -20
timeout 120 python3 utils/bench/training.py --models gpt2,resnet18 --steps 6 --modes eager \
  --optimizer fused --profile 3 > $OUT/train-fused.txt 2>&1
grep -v -i warn $OUT/train-fused.txt | grep -E "first|forward|busy|Error|error" | head -8
