#!/usr/bin/env bash
# Twelfth session, fourth GPU-machine call (2026-11-28): torch-mlir's e2e
# suite on CPU tensors at the session's last code change (109f368: an
# index-based mask kept in a row temporary). Carry .python-bundle.tar.xz
# and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
SHARD_S=200 OUT=/tmp/e2e timeout 230 .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
tail -4 $OUT/e2e.txt
timeout 300 python3 utils/zoo/zoo.py --models hf-gpt2,hf-bert,hf-llama,hf-vit,hf-t5,encoder --modes default --device cpu 2>&1 | tail -8
