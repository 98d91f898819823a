#!/usr/bin/env bash
# Thirty-second session, last GPU-machine call, on the final bundle
# (approximate traces an opt-in; the tracer's per-op cut and its restarts
# from the caller's inputs on by default): torch-mlir's e2e suite on CPU
# tensors, the zoo on the CPU, the tracer's tests on PyTorch 2.11, and the
# GPU rows' compile times, three fresh processes each. Carry
# .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
(cd .python-bundle && timeout 120 python3 -m pytest -q -p no:cacheprovider \
  test/test_approximate_trace.py test/test_fx.py test/test_graph_breaks.py test/test_api.py 2>&1 | tail -2)
export TGC_CACHE=0
for m in torchvision hf; do
  timeout 100 python3 utils/zoo/zoo.py --models $m --modes default --device cpu > $OUT/zoo-$m-cpu.txt 2>&1
  grep -E "runs:" $OUT/zoo-$m-cpu.txt
done
unset TGC_CACHE
timeout 200 python3 utils/bench/compile_cache.py --models hf-bert,gpt2-2,gpt2-24 --repeat 3 \
  --no-torch-compile 2>&1 | tail -8
