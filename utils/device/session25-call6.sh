#!/usr/bin/env bash
# Twenty-fifth session, sixth GPU-machine call (2026-11-29): the session's
# final bundle (GEMMs reading keys transposed under a batch collapse, the
# training changes; the CPU JIT's threads do not reach the GPU path):
# torch-mlir's e2e suite and the zoo's Hugging Face models on CUDA.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=130 bash utils/device/e2e.sh  # (a call returns at most 8 files)
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
timeout 120 python3 utils/zoo/zoo.py --models hf-gpt2,hf-bert,hf-llama,hf-vit,hf-t5 \
  --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" $OUT/zoo.txt | grep -v -i warn | tail -12
