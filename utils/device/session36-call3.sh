#!/usr/bin/env bash
# Thirty-sixth session, third GPU-machine call, on the bundle of 1819738
# (the review's mends: only index checks assert on the device): the CUDA
# tests (the runtime's check kernel on a scatter_add, recoverable
# division checks in reduce-overhead, SDPA masks from aranges), the
# call-path bench's HF rows (reduce-overhead with its checks on the host
# beside, TGC_BENCH_HOST_CHECKS=1) and TGC's device time per model
# against Inductor's. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  test/test_native_path.py test/test_scatter.py 2>&1 | tail -3)
TGC_BENCH_HOST_CHECKS=1 timeout 220 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/bench.txt 2>&1
grep -E "HF .*(inductor r-o|tgc )" $OUT/bench.txt | head -12
timeout 150 python3 utils/device/model_profile.py > $OUT/profile.txt 2>&1
grep -E "^==|device time per call" $OUT/profile.txt | head -40
