#!/usr/bin/env bash
# Thirty-third session, first GPU-machine call, on the bundle of e20d614:
# the commits of session 32 that ran on the CPU machine only (0149859..e20d614:
# ATen-schema number rule, new_tensor, the file moves). The e2e suite on CPU
# tensors (fullgraph: a new unneeded graph break shows as a failure), the zoo
# on the CPU and CUDA. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt 2>/dev/null
export TGC_CACHE=0
for d in cpu cuda; do
  for m in hf torchvision; do
    timeout 100 python3 utils/zoo/zoo.py --models $m --modes default --device $d > $OUT/zoo-$m-$d.txt 2>&1
    echo "$m $d"; grep -E "runs:|break|wrong|FAIL" $OUT/zoo-$m-$d.txt | head -5
  done
done
