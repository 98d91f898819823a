#!/usr/bin/env bash
# Thirty-first session, first GPU-machine call: the CPU's large x W^T
# blocks with W packed transposed against the dot products before
# (TGC_EXP_NO_TRANSPOSED_PACK=1: a hook of that bundle only, not
# committed), two alternating rounds of cpu_models.py --python on the
# host's 16 cores, Inductor's C++ backend once; then the compile-cache and
# large-linear tests (moved source lines, CUDA entries). Carry
# .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
ROWS=encoder,matmul2048
timeout 200 python3 utils/bench/cpu_models.py --python --repeat 10 --only encoder,matmul512,matmul2048 \
  2>&1 | tail -5
for r in 1 2; do for e in 0 1; do
  echo "=== round $r, no_transposed_pack=$e"
  if [[ $e = 1 ]]; then export TGC_EXP_NO_TRANSPOSED_PACK=1; else unset TGC_EXP_NO_TRANSPOSED_PACK; fi
  timeout 60 python3 utils/bench/cpu_models.py --python --repeat 10 --no-torch-compile \
    --only $ROWS 2>&1 | tail -3
done; done
unset TGC_EXP_NO_TRANSPOSED_PACK TGC_CACHE
cd .python-bundle && timeout 120 python3 -m pytest -q -p no:cacheprovider test/test_cache.py \
  "test/test_ops.py::test_large_linear_products" 2>&1 | tail -4
