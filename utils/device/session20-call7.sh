#!/usr/bin/env bash
# Twentieth session, seventh GPU-machine call (2026-11-29): torch-mlir's e2e
# suite and the model zoo (CUDA, and the CPU subset) on the session's
# final bundle (long rows at 1024 threads, the seed helper moved, the
# reference check with the call's seed): dropout outside training graphs, checks of the
# inputs first. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
E2E_SHARD_S=230 bash utils/device/e2e.sh
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo-cuda.txt 2>&1
grep -v -i warn $OUT/zoo-cuda.txt | tail -25
timeout 150 python3 utils/zoo/zoo.py --models hf-gpt2,hf-bert,hf-llama,hf-t5,tv-resnet18,tv-mobilenet-v3 \
  --device cpu > $OUT/zoo-cpu.txt 2>&1
grep -v -i warn $OUT/zoo-cpu.txt | tail -9
