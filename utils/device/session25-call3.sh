#!/usr/bin/env bash
# Twenty-fifth session, third GPU-machine call (2026-11-29): every device
# kernel of GPT-2 small's and ResNet-18's training steps, TGC against
# Inductor (and eager for ResNet-18), per step (training.py --kernels), to
# find where TGC's device time goes. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 4 --modes tgc,inductor \
  --profile 30 --kernels $OUT/kernels.tsv > $OUT/gpt2.txt 2>&1
grep -E "^gpt2 " $OUT/gpt2.txt
timeout 200 python3 utils/bench/training.py --models resnet18 --steps 6 --modes eager,tgc,inductor \
  --profile 30 --kernels $OUT/kernels.tsv > $OUT/resnet.txt 2>&1
grep -E "^resnet18 " $OUT/resnet.txt
wc -l $OUT/kernels.tsv
