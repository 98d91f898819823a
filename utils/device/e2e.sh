#!/usr/bin/env bash
# torch-mlir's e2e suite through tgc.compile on the GPU machine (carry
# .python-bundle.tar.xz and .e2e): writes $OUT/e2e.txt (default
# /tmp/conformance) and copies each shard's log there; prints the summary,
# the time, and each shard that did not finish (its log has no "Summary:",
# as when run.sh's per-shard timeout killed it), whose remaining tests were
# not run, which the summary's "reachable" count does not show.
#   bash utils/device/e2e.sh   (E2E_SHARD_S: seconds per shard, default 300)
source utils/device/bundle.sh
out=${OUT:-/tmp/conformance}; mkdir -p "$out"
start=$(date +%s)
SHARD_S=${E2E_SHARD_S:-300} OUT=/tmp/e2e .e2e/run.sh tgc > "$out/e2e.txt" 2>&1
echo "e2e: $(( $(date +%s) - start )) s"
head -12 "$out/e2e.txt"
for log in /tmp/e2e/e2e_*.log; do
  cp "$log" "$out/"
  grep -q "^Summary:" "$log" ||
    echo "e2e: shard $(basename "$log") did not finish; last result: $(grep '^R' "$log" | tail -1)"
done
