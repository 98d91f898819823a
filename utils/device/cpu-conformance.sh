#!/usr/bin/env bash
# The CPU's conformance runs of a device call, together: torch-mlir's e2e
# suite on CPU tensors (utils/device/e2e.sh, in the background) and the
# zoo on the CPU; summaries in $OUT/e2e-summary.txt and $OUT/zoo.txt.
# Sourced after utils/device/bundle.sh by the session scripts.
E2E_SHARD_S=200 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cpu 2>&1 \
  | grep -v -i warn > $OUT/zoo.txt; tail -4 $OUT/zoo.txt
wait $e2e
head -8 $OUT/e2e-summary.txt; grep "did not finish" $OUT/e2e-summary.txt
