#!/usr/bin/env bash
# Twenty-first session, fourth GPU-machine call (2026-11-29), on the final
# bundle: the optimizer step without CUDA graphs by default (call 3: the
# graph replay cost more host time than the launches), with its step
# counts advanced by one add; the CUDA tests, the optimizer bench, then
# torch-mlir's e2e suite and the model zoo on CUDA (the multi-output
# elementwise kernels and in-place updates change kernels of every model).
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_optim.py test/test_formulas.py \
   test/test_gpu.py test/test_training.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 70 python3 utils/bench/optimizer.py --models gpt2,resnet18 --modes eager,fused,tgc \
  --steps 30 > $OUT/optimizer.txt 2>&1
grep -v -i warn $OUT/optimizer.txt | tail -12
E2E_SHARD_S=200 bash utils/device/e2e.sh
timeout 170 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo-cuda.txt 2>&1
grep -v -i warn $OUT/zoo-cuda.txt | tail -25
