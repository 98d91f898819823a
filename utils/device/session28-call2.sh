#!/usr/bin/env bash
# Twenty-eighth session, second GPU-machine call: the dynamic training
# trace after call 1 (float sizes rebuilt in the backward, a trace that
# made a dynamic size static keyed by that size): the dynamic tests, real
# models with changing batch sizes, and what made GPT-2's batch size
# static (PyTorch's dynamic-shape log). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_training_dynamic.py \
   test/test_data_scalars.py test/test_partition.py 2>&1) > $OUT/pytest-dynamic.txt
tail -3 $OUT/pytest-dynamic.txt; grep -E "^FAILED|^E  " $OUT/pytest-dynamic.txt | cut -c1-400 | head -30
timeout 240 python3 utils/device/dynamic_train.py --models resnet18,gpt2,llama > $OUT/dynamic_train.txt 2>&1
grep -vE "^  " $OUT/dynamic_train.txt | cut -c1-600 | head -60
TORCH_LOGS=dynamic timeout 120 python3 utils/device/dynamic_train.py --models gpt2 > $OUT/gpt2-dynamic-log.txt 2>&1
grep -E "set_replacement|guard added|specializ" $OUT/gpt2-dynamic-log.txt | cut -c1-400 | head -30
