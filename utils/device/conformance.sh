#!/usr/bin/env bash
# The conformance runs an op, call-path or kernel issue needs before it is
# called resolved (docs/testing.md): torch-mlir's e2e suite through
# tgc.compile on CPU tensors, then the model zoo, each result compared with
# eager PyTorch. Run on the GPU machine from the checkout, carrying
# .python-bundle.tar.xz and .e2e:
#   bash utils/device/conformance.sh [ZOO_DEVICE ...]   (default: cpu)
# Writes $OUT/e2e.txt, $OUT/e2e_N.log and $OUT/zoo-DEVICE.txt; prints the
# summaries. A shard that did not finish (its log has no "Summary:", as
# when run.sh's per-shard timeout killed it) is reported by name: its
# remaining tests were not run, which the e2e summary's "reachable" count
# does not show. Limits: E2E_SHARD_S (default 300), ZOO_S (default 330).
set -uo pipefail
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/conformance}; mkdir -p "$out"
OUT=$out bash utils/device/e2e.sh
export PYTHONPATH=$PWD/.python-bundle
for dev in "${@:-cpu}"; do
  timeout "${ZOO_S:-330}" python3 utils/zoo/zoo.py --models all --modes default \
    --device "$dev" > "$out/zoo-$dev.txt" 2>&1
  grep -E "^[a-z].* (ok|wrong|error|cannot)|runs:" "$out/zoo-$dev.txt" | tail -24
done
