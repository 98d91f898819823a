#!/usr/bin/env bash
# Fourteenth session, first GPU-machine call (2026-11-28): stop 40's work on
# the GPU (arena cache, ABI 5 autocast / default-dtype checks, contents and
# hook guards, training's double-backward error and unused-output grads):
# torch-mlir's e2e suite, with a Python traceback of every shard still
# running at 230 s (the [M-Q] shard stalled in the last session after
# MaxPool3dStaticModule_basic), then the CUDA tests.
# Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
nvidia-smi -L
start=$(date +%s)
(sleep 230; pkill -ABRT -f run_e2e.py) & watcher=$!
SHARD_S=260 OUT=/tmp/e2e .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
kill $watcher 2>/dev/null
echo "e2e: $(( $(date +%s) - start )) s"; head -14 $OUT/e2e.txt
for log in /tmp/e2e/e2e_*.log; do
  cp "$log" $OUT/
  if ! grep -q "^Summary:" "$log"; then
    echo "== shard $(basename $log) did not finish; last: $(grep '^R' $log | tail -1 | cut -c1-200)"
    grep -A30 "Current thread\|Thread 0x" "$log" | grep -E "File|Thread" | head -30
  fi
done
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_gpu.py test/test_training.py \
  test/test_native_path.py test/test_pooling.py 2>&1) > $OUT/pytest.txt; tail -15 $OUT/pytest.txt
