#!/usr/bin/env bash
# Fourteenth session, eighth GPU-machine call (2026-11-28): the e2e suite
# and the CPU zoo after tgc-fuse's convolution epilogues (which change the
# CPU's kernels too). Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
start=$(date +%s)
SHARD_S=250 OUT=/tmp/e2e .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
echo "e2e: $(( $(date +%s) - start )) s"; head -6 $OUT/e2e.txt
for log in /tmp/e2e/e2e_*.log; do
  grep -q "^Summary:" "$log" || echo "== shard $(basename $log) did not finish"
done
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cpu \
  > $OUT/zoo-cpu.txt 2>&1
grep -E "runs:|wrong|error" $OUT/zoo-cpu.txt | tail -5
