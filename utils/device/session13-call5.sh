#!/usr/bin/env bash
# Thirteenth session, fifth GPU-machine call (2026-11-28): the e2e shard
# [M-Q] stopped at MaxPool3dStaticModule_basic in call 4 (420 s): that test
# and its neighbours alone, timed. Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
for t in axPool3dStaticModule axPool3dWithIndicesAllOnes; do
  start=$(date +%s)
  OUT=/tmp/e2e-$t timeout 100 .e2e/run.sh tgc "$t" > $OUT/$t.txt 2>&1
  echo "$t: $(( $(date +%s) - start )) s rc=$?"; grep "^R" /tmp/e2e-$t/e2e_3.log | cut -c1-300
  tail -3 /tmp/e2e-$t/e2e_3.log | cut -c1-300
done
