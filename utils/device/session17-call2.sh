#!/usr/bin/env bash
# Seventeenth session, second GPU-machine call (2026-11-28): the CPU
# changes on the GPU machine's 16-core CPU. Direct convolutions
# (07fd455) and the JIT's entry through its C interface (35709a0):
# torch-mlir's e2e suite on CPU tensors and the zoo on the CPU (run
# together), then issue 25's rows against eager and Inductor's C++
# backend, and the convolution rows with direct-convolutions=0 for the
# comparison. Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-100
E2E_SHARD_S=200 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
timeout 230 python3 utils/zoo/zoo.py --models all --modes default --device cpu 2>&1 \
  | grep -v -i warn > $OUT/zoo.txt; tail -4 $OUT/zoo.txt
wait $e2e
head -8 $OUT/e2e-summary.txt; grep "did not finish" $OUT/e2e-summary.txt
export TGC_CACHE=0
timeout 200 python3 utils/bench/cpu_models.py --python --repeat 10 \
  --only convs,resnet18,squeezenet,mobilenetv3,chain,matmul512 \
  --json $OUT/cpu_python.json 2>&1 | grep -v -i warn | tee $OUT/cpu_python.txt
timeout 60 python3 utils/bench/cpu_models.py --python --repeat 10 --no-torch-compile \
  --only convs,resnet18,squeezenet --options direct-convolutions=0 2>&1 \
  | grep -v -i warn | tee $OUT/cpu_python_im2col.txt
