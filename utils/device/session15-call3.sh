#!/usr/bin/env bash
# Fifteenth session, third GPU-machine call (2026-11-28): is the cuDNN
# convolutions' gap to eager host time per call (legacy cuDNN API) or
# device time? Vision inference with CUDA graphs (reduce-overhead) next to
# default; then torch-mlir's e2e suite with cuDNN convolutions.
# Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
cp utils/bench/vision_inference.py /tmp/vi.py
timeout 150 python3 /tmp/vi.py --models resnet18,resnet50 --modes eager,tgc,tgc-ro,inductor-ro \
  2>&1 | grep -v -i warn | tee $OUT/vision-ro.txt
start=$(date +%s)
SHARD_S=230 OUT=/tmp/e2e .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
echo "e2e: $(( $(date +%s) - start )) s"; head -14 $OUT/e2e.txt
for log in /tmp/e2e/e2e_*.log; do
  grep -q "^Summary:" "$log" || echo "== shard $(basename $log) did not finish"
done
