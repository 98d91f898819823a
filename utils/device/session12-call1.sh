#!/usr/bin/env bash
# Twelfth session, first GPU-machine call (2026-11-28): issue 25's rows on
# the GPU machine's 16-core CPU after results written in place, softmax /
# layer norm rows in one kernel and exp once per softmax element; then
# torch-mlir's e2e suite on CPU tensors (the CPU pipeline). Carry
# .python-bundle.tar.xz and .e2e. Results: docs/performance.md.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
nvidia-smi -L
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-100
# 1. Issue 25's rows: tgc.compile vs eager vs torch.compile (Inductor C++).
timeout 300 python3 utils/bench/cpu_models.py --python --repeat 10 \
  --only chain,encoder,matmul512,convs,resnet18,squeezenet,mobilenetv3 \
  --json $OUT/cpu_python.json 2>&1 | tee $OUT/cpu_python.txt
# 2. torch-mlir's e2e suite (CPU tensors: the CPU pipeline).
SHARD_S=200 OUT=/tmp/e2e timeout 230 .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
tail -25 $OUT/e2e.txt
