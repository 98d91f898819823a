#!/usr/bin/env bash
# Sixteenth session, first GPU-machine call (2026-11-28): the commits of
# session 15 not yet run on a GPU, and the kernels' LLVM work on several
# threads (lib/Target/NVPTX/SplitKernels.h): the CUDA tests, the zoo on
# CUDA, and cold compile times with one thread and with every core.
# Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
export TGC_CACHE=0
(cd .python-bundle && timeout 240 python3 -m pytest -q -x test/test_gpu.py test/test_pooling.py \
   test/test_training.py test/test_native_path.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cuda 2>&1 \
  | grep -v -i warn > $OUT/zoo.txt; tail -25 $OUT/zoo.txt
unset TGC_CACHE
for t in 1 16; do
  echo "== TGC_COMPILE_THREADS=$t"
  TGC_COMPILE_THREADS=$t timeout 120 python3 utils/bench/compile_cache.py --models gpu \
    --no-torch-compile --json $OUT/compile-$t.json 2>&1 | grep -v -i warn | tail -30
done
