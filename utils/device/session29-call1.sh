#!/usr/bin/env bash
# Twenty-ninth session, first GPU-machine call: (1) whether ResNet-18's
# batch-6 CUDA gradient difference is a wrong answer (each compiled graph
# against its FX graph on the same inputs; resnet_batch6_saved.py);
# (2) with 3f43fb1 re-applied (index_put of independent dynamic sizes,
# slice_scatter over a whole dynamic dim), HF GPT-2's dynamic backward
# compile that did not finish, its graph written by the slow-compile
# watch; (3) where GPT-2's host time per step goes (train_host.py).
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
cd utils/device
timeout 150 python3 resnet_batch6_saved.py 6 > $OUT/batch6.txt 2>&1; echo "batch6 rc=$?"
cat $OUT/batch6.txt | tail -30
mkdir -p $OUT/slow
TGC_SLOW_COMPILE_S=20 TGC_SLOW_COMPILE_DIR=$OUT/slow timeout 120 python3 dynamic_train.py --models gpt2 \
  > $OUT/dyn_gpt2.txt 2>&1; echo "dyn rc=$?"
grep -E "graph break|specialization\(s\)|batch 8 step|FAILED|slow|Traceback" $OUT/dyn_gpt2.txt | cut -c1-300
find $OUT/slow -type f | head; du -sh $OUT/slow
cd ../..
timeout 200 python3 utils/device/train_host.py gpt2 > $OUT/host_gpt2.txt 2>&1; echo "host rc=$?"
head -c 6000 $OUT/host_gpt2.txt
