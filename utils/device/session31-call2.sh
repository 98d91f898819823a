#!/usr/bin/env bash
# Thirty-first session, second GPU-machine call, on the final bundle:
# torch-mlir's e2e suite (CPU tensors, shards of 200 s), the zoo on the
# CPU (torchvision, Hugging Face: linear layers through the transposed
# panels), and cold / from-disk compile times with source
# lines left out of the keys. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -14
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
export TGC_CACHE=0
for m in torchvision hf; do
  timeout 140 python3 utils/zoo/zoo.py --models $m --modes default --device cpu > $OUT/zoo-$m-cpu.txt 2>&1
  grep -E "runs:" $OUT/zoo-$m-cpu.txt
done
unset TGC_CACHE
timeout 70 python3 utils/bench/compile_cache.py --models cpu-stack,hf-bert,gpt2-2 \
  --no-torch-compile 2>&1 | tail -8
