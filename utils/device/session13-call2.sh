#!/usr/bin/env bash
# Thirteenth session, second GPU-machine call (2026-11-28): after batch
# norm's cuDNN dispatch decomposes and max_pool2d with indices and its
# backward compile (issue 21): the pooling and training tests on CUDA,
# ResNet-18 and GPT-2 training steps with their profiles, then torch-mlir's
# e2e suite (CPU tensors). Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
cd .python-bundle/test 2>/dev/null && timeout 200 python3 -m pytest -q -x test_pooling.py test_training.py 2>&1 | tail -4; cd - >/dev/null
timeout 150 python3 utils/bench/training.py --models resnet18 --steps 8 \
  --modes eager,tgc,tgc-backend --profile 25 2>&1 | tee $OUT/resnet18.txt | grep -E "first|forward|vs eager|Error|error" | cut -c1-200
timeout 120 python3 utils/bench/training.py --models gpt2 --steps 6 \
  --modes tgc 2>&1 | tee $OUT/gpt2.txt | grep -E "first|forward|vs eager|Error|error" | cut -c1-200
SHARD_S=200 OUT=/tmp/e2e timeout 230 .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
tail -12 $OUT/e2e.txt
