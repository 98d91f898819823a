#!/usr/bin/env bash
# Thirty-first session, last GPU-machine call, on the bundle of aa7946b
# (the transposed pack as loops LLVM keeps): torch-mlir's e2e suite on CPU
# tensors, the Hugging Face zoo on the CPU (their linear layers), and the
# encoder row's compile and run times. Carry .python-bundle.tar.xz and
# .e2e.
source utils/device/bundle.sh
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
export TGC_CACHE=0
timeout 140 python3 utils/zoo/zoo.py --models hf --modes default --device cpu > $OUT/zoo-hf-cpu.txt 2>&1
grep -E "runs:" $OUT/zoo-hf-cpu.txt
for r in 1 2; do
  timeout 60 python3 utils/bench/cpu_models.py --python --repeat 10 --no-torch-compile \
    --only encoder 2>&1 | tail -1
done
