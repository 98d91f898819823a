#!/usr/bin/env bash
# Thirty-seventh session, sixth GPU-machine call: call 5 found wrong
# answers (HF BERT, GPT-2, ViT) with sibling kernels merged inside row
# groups; siblings now merge only in groups of elementwise work. The CUDA
# tests, the zoo's hf (default and reduce-overhead) and hf-wide groups on
# CUDA, then the call-path bench's HF rows. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 120 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  test/test_native_path.py 2>&1 | grep -E "passed|failed|FAILED" | tail -6)
for mode in default reduce-overhead; do
  timeout 80 python3 utils/zoo/zoo.py --models hf --modes $mode --device cuda > $OUT/zoo-hf-$mode.txt 2>&1
  echo "hf $mode rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-hf-$mode.txt | head -6
done
timeout 120 python3 utils/zoo/zoo.py --models hf-wide --modes default --device cuda > $OUT/zoo-hf-wide.txt 2>&1
echo "hf-wide rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-hf-wide.txt | head -6
timeout 150 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/bench.txt 2>&1
echo "bench rc=$?"; grep -E "HF .*(inductor r-o|tgc )" $OUT/bench.txt | head -12
