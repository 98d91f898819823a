#!/usr/bin/env bash
# Twenty-seventh session, sixth GPU-machine call: a training call's mutated
# inputs (BatchNorm's running statistics) written back with one
# torch._foreach_copy_ instead of a copy_ each: the CUDA training tests and
# ResNet-18's step with its host phases. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 100 python3 -m pytest -q test/test_training.py \
   -k "batchnorm or cnn or foreach or convolution_backward" 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
timeout 120 python3 utils/bench/training.py --models resnet18 --steps 8 --modes eager,tgc --phases \
  --profile 10 > $OUT/resnet.txt 2>&1
grep -E "^resnet18 " $OUT/resnet.txt
