#!/usr/bin/env bash
# Twenty-fifth session, fourth GPU-machine call (2026-11-29): training
# layer norms from one pass of statistics (native_layer_norm decomposed):
# GPT-2 small's training step against eager with every kernel's time per
# step, and GPT-2's traced training graphs for compiling here.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
TGC_LOGS=graph timeout 100 python3 utils/device/gpt2_graphs.py 2> $OUT/graphs.log > /dev/null
grep -c "" $OUT/graphs.log; xz -9 $OUT/graphs.log
timeout 200 python3 utils/bench/training.py --models gpt2 --steps 8 --modes eager,tgc \
  --profile 10 --kernels $OUT/kernels.tsv > $OUT/gpt2.txt 2>&1
grep -E "^gpt2 " $OUT/gpt2.txt
(cd .python-bundle && timeout 100 python3 -m pytest -q test/test_training.py -k "layer_norm or gpt2 or bert" 2>&1 | tail -2)
