#!/usr/bin/env bash
# Twenty-sixth session, first GPU-machine call (2026-11-29): the previous
# stop's unvalidated work (tgc-gpu-fold-gemm-transposes' inverse-permutation
# fix b7f548e, the CPU JIT on threads): torch-mlir's e2e suite and the whole
# zoo on CUDA. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=130 bash utils/device/e2e.sh  # (a call returns at most 8 files)
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
timeout 420 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" $OUT/zoo.txt | grep -v -i warn | tail -25
