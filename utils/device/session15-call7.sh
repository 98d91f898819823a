#!/usr/bin/env bash
# Fifteenth session, seventh GPU-machine call (2026-11-28): torch-mlir's e2e
# suite with cuDNN convolutions through the backend API's timed plans
# (1a30e26's bundle). Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
start=$(date +%s)
SHARD_S=230 OUT=/tmp/e2e .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
echo "e2e: $(( $(date +%s) - start )) s"; head -5 $OUT/e2e.txt
for log in /tmp/e2e/e2e_*.log; do
  grep -q "^Summary:" "$log" || echo "== shard $(basename $log) did not finish"
done
