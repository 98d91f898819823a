#!/usr/bin/env bash
# Twenty-seventh session, fifth GPU-machine call: where the host time of
# ResNet-18's and GPT-2's compiled training steps goes (the forward call's
# Python and native phases, cProfile). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
for m in resnet18 gpt2; do
  timeout 150 python3 utils/device/train_host.py $m > $OUT/host-$m.txt 2>&1
  grep -E "^host|native phases|steps, checks" $OUT/host-$m.txt
done
