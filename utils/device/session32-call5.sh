#!/usr/bin/env bash
# Thirty-second session, last GPU-machine call, on the bundle of d9ca804:
# identical CPU kernels outlined before the loop passes (c778068) and a
# tensor's value used as a number made a graph break (d9ca804). The e2e
# suite on CPU tensors (its coverage runs use fullgraph: a new graph break
# shows as a failure), the zoo on the CPU and CUDA. Carry
# .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt 2>/dev/null
export TGC_CACHE=0
for m in hf torchvision; do
  timeout 80 python3 utils/zoo/zoo.py --models $m --modes default --device cpu > $OUT/zoo-$m-cpu.txt 2>&1
  grep -E "runs:" $OUT/zoo-$m-cpu.txt
done
