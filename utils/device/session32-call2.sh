#!/usr/bin/env bash
# Thirty-second session, last GPU-machine call, on the final bundle:
# compile times with approximate traces (cold, from disk; the trace's
# share) on the CPU and GPU rows, the CPU rows' compile column with
# approximate traces on and off, the zoo on CUDA, and the tracer's tests
# on PyTorch 2.11 (test_fx's ExportedProgram range check). Carry
# .python-bundle.tar.xz.
source utils/device/bundle.sh
(cd .python-bundle && timeout 120 python3 -m pytest -q -p no:cacheprovider \
  test/test_approximate_trace.py test/test_fx.py test/test_graph_breaks.py 2>&1 | tail -3)
timeout 100 python3 utils/zoo/zoo.py --models hf --modes default --device cuda > $OUT/zoo-hf-cuda.txt 2>&1
grep -E "runs:" $OUT/zoo-hf-cuda.txt
timeout 170 python3 utils/bench/compile_cache.py --models cpu-stack,cpu-gpt2-2,cpu-gpt2-24,hf-bert,gpt2-2,gpt2-24 \
  --no-torch-compile 2>&1 | tail -16
for a in 1 0; do
  TGC_TRACE_APPROXIMATE=$a TGC_CACHE=0 timeout 90 python3 utils/bench/cpu_models.py --python --repeat 5 \
    --no-torch-compile --only matmul2048,encoder,resnet18 2>&1 | tail -3
done
