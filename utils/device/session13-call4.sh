#!/usr/bin/env bash
# Thirteenth session, fourth GPU-machine call (2026-11-28): torch-mlir's e2e
# suite again with the default shard limit (call 3's 200 s cut a shard
# short), each shard's duration and slowest tests. Carry
# .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
start=$(date +%s)
OUT=/tmp/e2e timeout 420 .e2e/run.sh tgc > $OUT/e2e.txt 2>&1
echo "e2e took $(( $(date +%s) - start )) s"
tail -8 $OUT/e2e.txt
for f in /tmp/e2e/e2e_*.log; do echo "$f: $(grep -c '^R' $f) results"; done
cp /tmp/e2e/e2e_*.log $OUT/ 2>/dev/null
