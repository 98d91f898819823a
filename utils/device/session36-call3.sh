#!/usr/bin/env bash
# Thirty-sixth session, third GPU-machine call, same bundle as call 2: the
# call-path bench's HF rows (reduce-overhead with its checks on the host
# beside, TGC_BENCH_HOST_CHECKS=1) and TGC's device time per model
# against Inductor's. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
TGC_BENCH_HOST_CHECKS=1 timeout 220 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/bench.txt 2>&1
grep -E "HF .*(inductor r-o|tgc )" $OUT/bench.txt | head -12
timeout 200 python3 utils/device/model_profile.py > $OUT/profile.txt 2>&1
grep -E "^==|device time per call" $OUT/profile.txt | head -40
