#!/usr/bin/env bash
# Thirty-second session, second GPU-machine call: compile times with the
# approximate trace (cold, from disk; the trace's share), the zoo on CUDA,
# and the CPU rows' compile column. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
timeout 100 python3 utils/zoo/zoo.py --models hf --modes default --device cuda > $OUT/zoo-hf-cuda.txt 2>&1
grep -E "runs:" $OUT/zoo-hf-cuda.txt
timeout 150 python3 utils/bench/compile_cache.py --models cpu-stack,cpu-gpt2-2,cpu-gpt2-24,hf-bert,gpt2-2,gpt2-24 \
  --no-torch-compile 2>&1 | tail -14
for a in 1 0; do
  TGC_TRACE_APPROXIMATE=$a TGC_CACHE=0 timeout 90 python3 utils/bench/cpu_models.py --python --repeat 5 \
    --no-torch-compile --only matmul2048,encoder,resnet18 2>&1 | tail -3
done
