#!/usr/bin/env bash
# Twenty-ninth session, fourth GPU-machine call: the training rows against
# Inductor in one process (GPT-2 small and ResNet-18; session 27's
# comparison took Inductor's GPT-2 time from another session), with each
# mode's device-busy time and top kernels (--profile). Carry
# .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 280 python3 utils/bench/training.py --models gpt2 --steps 10 --modes eager,inductor,tgc \
  --profile 5 > $OUT/gpt2.txt 2>&1; echo "gpt2 rc=$?"
grep -vE "^\s+(aten|cuda|void|ampere|sm90|Memcpy|triton|at::|std::)" $OUT/gpt2.txt | grep -E "step|busy|ms|launch" | head -30
timeout 250 python3 utils/bench/training.py --models resnet18 --steps 10 --modes eager,inductor,tgc \
  --profile 5 > $OUT/resnet.txt 2>&1; echo "resnet rc=$?"
grep -E "step|busy|launch" $OUT/resnet.txt | head -30
