#!/usr/bin/env bash
# Twenty-sixth session, second GPU-machine call (2026-11-29): row kernels
# keep their register slots when a stage runs on `[B, 1]` statistics
# (layer norm's rsqrt(var + eps) in training graphs) and read keepdim
# statistics through their expand_shape from registers: the CUDA row,
# dropout and training tests, and GPT-2 small's training step against eager
# with every kernel's time. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 240 python3 -m pytest -q -x test/test_gpu.py test/test_dropout.py \
   test/test_training.py 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc \
  --profile 10 --kernels $OUT/kernels.tsv > $OUT/gpt2.txt 2>&1
grep -E "^gpt2 " $OUT/gpt2.txt
