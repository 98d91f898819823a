#!/usr/bin/env bash
# Sixteenth session, second GPU-machine call (2026-11-28): torch-mlir's e2e
# suite with the kernels' LLVM work split over every core (moved kernels,
# not copies), where ptxas' time goes per kernel, and ConvNeXt's first call
# from the disk cache with and without cuDNN's timed engine choice.
# Carry .python-bundle.tar.xz and .e2e.
set -uo pipefail
export PYTHONUNBUFFERED=1
E2E_SHARD_S=230 bash utils/device/e2e.sh
export PYTHONPATH=$PWD/.python-bundle
timeout 150 python3 utils/device/ptxas_probe.py 2>&1 | grep -v -i warn | tee $OUT/ptxas.txt
for tune in 1 0; do
  echo "== TGC_CUDNN_TUNE=$tune"
  TGC_CUDNN_TUNE=$tune timeout 60 python3 utils/bench/compile_cache.py --models tv-convnext-tiny \
    --no-torch-compile 2>&1 | grep -v -i warn | tail -3
done
