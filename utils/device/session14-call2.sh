#!/usr/bin/env bash
# Fourteenth session, second GPU-machine call (2026-11-28): TF32 as
# PyTorch's flags allow it (tgc-mark-tf32) and the clone bound of
# tgc-form-kernels (the e2e [M-Q] shard's stall): the CUDA tests, the
# ResNet-18 training step with the default flags and with TF32 off, and
# torch-mlir's e2e suite. Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
nvidia-smi -L
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_gpu.py \
  test/test_native_path.py 2>&1) > $OUT/pytest.txt; tail -4 $OUT/pytest.txt
for tf32 in default off; do
  timeout 120 python3 utils/bench/training.py --models resnet18 --steps 6 \
    --modes eager,tgc --tf32 $tf32 2>&1 | tee $OUT/resnet18-$tf32.txt | grep -v "^ *$" | cut -c1-200
done
start=$(date +%s)
(sleep 200; pkill -ABRT -f run_e2e.py) & watcher=$!
SHARD_S=230 OUT=/tmp/e2e .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
kill $watcher 2>/dev/null
echo "e2e: $(( $(date +%s) - start )) s"; head -8 $OUT/e2e.txt
for log in /tmp/e2e/e2e_*.log; do
  cp "$log" $OUT/
  grep -q "^Summary:" "$log" || echo "== shard $(basename $log) did not finish; last: $(grep '^R' $log | tail -1 | cut -c1-200); $(grep -c '^R' $log) results"
done
