#!/usr/bin/env bash
# Fifteenth session, first GPU-machine call (2026-11-28): f32 convolutions
# as cuDNN calls (cudnn-convolutions, on where torch.backends.cudnn.enabled):
# the CUDA tests, vision inference with cuDNN and with TGC_CUDNN=0 (im2col),
# the zoo on CUDA. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
nvidia-smi -L
(cd .python-bundle && timeout 240 python3 -m pytest -q -x test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -3 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 100 python3 utils/bench/vision_inference.py --models resnet18,resnet50 --modes eager,inductor,tgc \
  2>&1 | grep -v Warning | tee $OUT/vision.txt
TGC_CUDNN=0 timeout 60 python3 utils/bench/vision_inference.py --models resnet18,resnet50 --modes eager,tgc \
  2>&1 | grep -v Warning | tee $OUT/vision-im2col.txt
timeout 150 python3 utils/zoo/zoo.py --models all --modes default --device cuda \
  > $OUT/zoo-cuda.txt 2>&1
grep -E "^tv-|^cnn|runs:|wrong|error" $OUT/zoo-cuda.txt | tail -14
