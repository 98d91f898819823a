#!/usr/bin/env bash
# Twenty-seventh session, seventh GPU-machine call: one zero fill per
# reduction accumulator (tgc-clone-shared-fills: no fill-and-copy kernel
# pair per batch-norm statistic): the CUDA training tests, torch-mlir's e2e
# suite and ResNet-18's step. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 80 python3 -m pytest -q test/test_training.py \
   -k "batchnorm or cnn or gpt or convolution_backward or layer" 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
OUT=/tmp/e2eout E2E_SHARD_S=100 bash utils/device/e2e.sh | head -4
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
timeout 60 python3 utils/bench/training.py --models resnet18 --steps 8 --modes tgc --phases \
  > $OUT/resnet.txt 2>&1
grep -E "^resnet18 " $OUT/resnet.txt
