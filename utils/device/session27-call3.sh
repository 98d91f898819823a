#!/usr/bin/env bash
# Twenty-seventh session, third GPU-machine call: with the fusion fix
# (tgc-fuse-group-elementwise deduplicates and CSEs after each merge; a
# ResNet-18 training forward compiled for minutes) and the convolution
# backward on cuDNN: the CUDA training tests, ResNet-18's training step
# against eager, torch-mlir's e2e suite (its ConvolutionBackward modules
# included) and the torchvision zoo. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 120 python3 -m pytest -q test/test_training.py \
   -k "convolution_backward or batchnorm or cnn or gpt" 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
timeout 150 python3 utils/bench/training.py --models resnet18 --steps 6 --modes eager,tgc \
  --profile 10 > $OUT/resnet.txt 2>&1
grep -E "^resnet18 " $OUT/resnet.txt
OUT=/tmp/e2eout E2E_SHARD_S=120 bash utils/device/e2e.sh | head -14
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
timeout 150 python3 utils/zoo/zoo.py --models torchvision --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" $OUT/zoo.txt | grep -v -i warn | tail -14
