#!/usr/bin/env bash
# Thirty-seventh session, first GPU-machine call: the CPU changes on the
# GPU machine's CPU. 512-bit vectors where the host has AVX-512
# (vector-width) and a row's divisions by one computed value as one
# reciprocal (tgc-reciprocal-divisions; exact-division): torch-mlir's e2e
# suite on CPU tensors and the zoo on the CPU (run together), then issue
# 25's Python rows against eager and Inductor's C++ backend, and the same
# rows with the session's start behaviour (vector-width=256
# exact-division=1) in the same call. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
lscpu | grep -E "Model name|^CPU\(s\)|avx512f" | cut -c1-100 | head -3
E2E_SHARD_S=200 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
timeout 230 python3 utils/zoo/zoo.py --models all --modes default --device cpu 2>&1 \
  | grep -v -i warn > $OUT/zoo.txt; tail -4 $OUT/zoo.txt
wait $e2e
head -8 $OUT/e2e-summary.txt; grep "did not finish" $OUT/e2e-summary.txt
export TGC_CACHE=0
rows=chain,encoder,convs,resnet18,squeezenet,mobilenetv3,matmul512
timeout 150 python3 utils/bench/cpu_models.py --python --repeat 10 --only $rows \
  --json $OUT/cpu_python.json 2>&1 | grep -v -i warn | tee $OUT/cpu_python.txt
timeout 90 python3 utils/bench/cpu_models.py --python --repeat 10 --no-torch-compile --only $rows \
  --options "vector-width=256 exact-division=1" 2>&1 | grep -v -i warn | tee $OUT/cpu_python_before.txt
timeout 90 python3 utils/bench/cpu_models.py --python --repeat 10 --no-torch-compile --only $rows \
  2>&1 | grep -v -i warn | tee $OUT/cpu_python_again.txt
