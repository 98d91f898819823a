#!/usr/bin/env bash
# Thirty-first session, last GPU-machine calls, on the bundle of the final
# code (TGC's OpenMP blocktime 1 ms): utils/bench/omp_interplay.py as it
# is and with KMP_BLOCKTIME=200, test_openmp_runtime.py; then (a second
# call) torch-mlir's e2e suite on CPU tensors and the torchvision zoo on
# the CPU. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 150 python3 utils/bench/omp_interplay.py
KMP_BLOCKTIME=200 timeout 150 python3 utils/bench/omp_interplay.py
timeout 150 python3 utils/bench/omp_interplay.py
(cd .python-bundle && timeout 100 python3 -m pytest -q -p no:cacheprovider test/test_openmp_runtime.py 2>&1 | tail -2)
unset TGC_CACHE
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -4
export TGC_CACHE=0
timeout 140 python3 utils/zoo/zoo.py --models torchvision --modes default --device cpu > $OUT/zoo-tv-cpu.txt 2>&1
grep -E "runs:" $OUT/zoo-tv-cpu.txt
