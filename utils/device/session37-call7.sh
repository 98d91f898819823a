#!/usr/bin/env bash
# Thirty-seventh session, seventh GPU-machine call: the sibling merge
# searched per group (7435ac5, a restructuring of the merge call 6
# checked): the CUDA tests and the zoo's hf and hf-wide groups on CUDA.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 100 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  2>&1 | grep -E "passed|failed|FAILED" | tail -6)
timeout 70 python3 utils/zoo/zoo.py --models hf --modes default --device cuda > $OUT/zoo-hf.txt 2>&1
echo "hf rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-hf.txt | head -6
timeout 110 python3 utils/zoo/zoo.py --models hf-wide --modes default --device cuda > $OUT/zoo-hf-wide.txt 2>&1
echo "hf-wide rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-hf-wide.txt | head -6
