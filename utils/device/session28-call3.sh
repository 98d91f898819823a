#!/usr/bin/env bash
# Twenty-eighth session, third GPU-machine call: the dynamic training
# trace with graph-break results dynamic and the trace's specializations
# located; real models with changing batch sizes, dropout and TF32 off.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_training_dynamic.py 2>&1) \
  > $OUT/pytest-dynamic.txt
tail -2 $OUT/pytest-dynamic.txt; grep -E "^FAILED|^E  " $OUT/pytest-dynamic.txt | \
  grep -E "FAILED|made static|dynamic trace failed|recompile:|assert " | cut -c1-500 | head -30
timeout 240 python3 utils/device/dynamic_train.py --models resnet18,gpt2,llama,bert \
  > $OUT/dynamic_train.txt 2>&1
grep -E "step 0|step 7|specialization|made static|failed|batch 8 step|FAILED" \
  $OUT/dynamic_train.txt | cut -c1-500 | head -60
