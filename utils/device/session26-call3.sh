#!/usr/bin/env bash
# Twenty-sixth session, third GPU-machine call (2026-11-29): row kernels
# with register slots around [B, 1] statistics and tgc-decompose's one-hot
# sum fold: torch-mlir's e2e suite, the fold's CUDA tests, and GPT-2
# small's training step against Inductor with every kernel's time and the
# host's time before each step's first kernel. Carry .python-bundle.tar.xz
# and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=130 bash utils/device/e2e.sh  # (a call returns at most 8 files)
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
(cd .python-bundle && timeout 60 python3 -m pytest -q test/test_training.py \
   -k "one_hot or vocabulary or cross_entropy" 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
timeout 300 python3 utils/bench/training.py --models gpt2 --steps 8 --modes tgc,inductor \
  --profile 10 --kernels $OUT/kernels.tsv > $OUT/gpt2.txt 2>&1
grep -E "^gpt2 " $OUT/gpt2.txt
