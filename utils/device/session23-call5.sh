#!/usr/bin/env bash
# Twenty-third session, fifth GPU-machine call (2026-11-29): GEMMs read
# transposed operands themselves (tgc-gpu-fold-gemm-transposes): the CUDA
# tests of GEMMs and training, torch-mlir's e2e suite, and GPT-2 small's
# training step against eager. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_gpu.py test/test_training.py \
   test/test_formulas.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
E2E_SHARD_S=150 bash utils/device/e2e.sh
timeout 150 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc \
  2>&1 | grep -E "^gpt2 " | tee $OUT/train.txt
