#!/usr/bin/env bash
# Tenth session, second GPU call (2026-11-27): the compile cache, kernel
# dedup and the bf16 attention fix on the H100. Carry .python-bundle.tar.xz.
# Results: docs/testing.md ("Tenth session"), docs/performance.md.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
nvidia-smi -L
# 1. Tests: the cache (CUDA entries, cuBLASLt choices), profiles, the GPU
#    path, dtypes (the attention change).
(cd .python-bundle && timeout 240 python3 -m pytest -q test/test_cache.py test/test_profile.py \
  test/test_gpu.py test/test_native_path.py test/test_dtypes.py 2>&1) > $OUT/pytest.txt
tail -5 $OUT/pytest.txt
# 2. Profiles after the attention fix.
timeout 150 python3 utils/device/profile_demo.py > $OUT/profile_demo.txt 2>&1
grep -A26 "bfloat16" $OUT/profile_demo.txt | head -30
# 3. Compile times: cold, in-process, from disk, next to torch.compile.
timeout 330 python3 utils/bench/compile_cache.py --models gpu --json $OUT/compile_cache.json 2>&1 \
  | tee $OUT/compile_cache.txt
