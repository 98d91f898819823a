#!/usr/bin/env bash
# Twenty-eighth session, first GPU-machine call: training with a batch
# size that changes between steps (tgc._symbolic: a symbolic make_fx trace
# on PyTorch 2.x, sizes rebuilt in the backward): the dynamic training
# tests on CPU and CUDA, the training tests around them, real models
# (utils/device/dynamic_train.py), then torch-mlir's e2e suite and the
# torchvision zoo for the convolution refactors of stop 54.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q -x test/test_training_dynamic.py \
   test/test_data_scalars.py test/test_partition.py 2>&1) > $OUT/pytest-dynamic.txt
tail -3 $OUT/pytest-dynamic.txt; grep -E "^FAILED|^E  " $OUT/pytest-dynamic.txt | head -20
(cd .python-bundle && timeout 240 python3 -m pytest -q test/test_training.py test/test_dropout.py \
   test/test_optim.py 2>&1) > $OUT/pytest-training.txt
tail -2 $OUT/pytest-training.txt; grep -E "^FAILED" $OUT/pytest-training.txt | head -10
timeout 300 python3 utils/device/dynamic_train.py > $OUT/dynamic_train.txt 2>&1
grep -vE "^  " $OUT/dynamic_train.txt | head -60
OUT=/tmp/e2eout E2E_SHARD_S=120 bash utils/device/e2e.sh | head -14
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
timeout 150 python3 utils/zoo/zoo.py --models torchvision --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" $OUT/zoo.txt | grep -v -i warn | tail -14
