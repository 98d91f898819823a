#!/usr/bin/env bash
# Nineteenth session, first GPU-machine call (2026-11-28): tgc.scatter_add
# (embedding backward, index_put with accumulate, the CPU max-pool
# backward), its GPU atomic adds, tgc-parallelize-marked-loops and returned
# reshapes in the caller's memory: the CUDA tests, torch-mlir's e2e suite
# (CPU tensors; its scatter, index_put and index_add tests now compile),
# and GPT-2's training step, whose embedding backward was a graph break.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
E2E_SHARD_S=230 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
export TGC_CACHE=0
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_scatter.py test/test_gpu.py \
   test/test_pooling.py test/test_training.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
wait $e2e
head -14 $OUT/e2e-summary.txt
timeout 240 python3 utils/bench/training.py --models gpt2 --steps 6 --modes eager,tgc 2>&1 \
  | grep -v -i warn > $OUT/training.txt; tail -12 $OUT/training.txt
