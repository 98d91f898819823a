#!/usr/bin/env bash
# Twenty-seventh session, fourth GPU-machine call: GPT-2 small's training
# step after the fusion fix (against session 26's 84.4 ms), and where the
# compiled calls' host time goes (--phases) on GPT-2 and ResNet-18;
# Inductor's ResNet-18 step for the ratio. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc --phases \
  > $OUT/gpt2.txt 2>&1
grep -E "^gpt2 " $OUT/gpt2.txt
timeout 100 python3 utils/bench/training.py --models resnet18 --steps 8 --modes tgc --phases \
  > $OUT/resnet.txt 2>&1
grep -E "^resnet18 " $OUT/resnet.txt
timeout 200 python3 utils/bench/training.py --models resnet18 --steps 8 --modes eager,inductor \
  > $OUT/resnet-inductor.txt 2>&1
grep -E "^resnet18 " $OUT/resnet-inductor.txt
