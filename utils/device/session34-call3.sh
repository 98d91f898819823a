#!/usr/bin/env bash
# Thirty-fourth session, third GPU-machine call, on the bundle of 57d0a86:
# the sweep's failures after their fixes (b5b8198: RoBERTa's launch plan
# through the backend; f6686d1: is_compiling() during a trace, for OPT,
# BART and DeBERTa-v2; c5c5d64 and 57d0a86: Swin V2), the graph breaks of
# the wide group with their reasons, then the zoo's usual groups and the
# e2e suite (is_compiling changes what library code runs under a trace).
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 90 python3 utils/zoo/zoo.py --models hf-opt,hf-bart,hf-deberta-v2 --modes default --device cuda -v 2>&1 | grep -vE "^\[transformers\]|  hf-[a-z0-9-]+ default call" | tail -12
timeout 60 python3 utils/zoo/zoo.py --models hf-roberta --modes backend --device cuda 2>&1 | tail -2
timeout 60 python3 utils/zoo/zoo.py --models tv-swin-v2-t --modes default --device cuda 2>&1 | tail -2
timeout 90 python3 utils/zoo/zoo.py --models hf-gptj,hf-bloom,hf-falcon,hf-roberta --modes default --device cuda -v 2>&1 | grep "graph break:" | cut -c1-330
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
for m in hf torchvision; do
  timeout 110 python3 utils/zoo/zoo.py --models $m --modes default,reduce-overhead --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|break|wrong|FAIL|MISMATCH|ERROR|cannot" $OUT/zoo-$m.txt | head -8
done
