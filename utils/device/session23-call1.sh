#!/usr/bin/env bash
# Twenty-third session, first GPU-machine call (2026-11-29): the last
# stop's commits not yet run on a GPU (eval dropout on a view, GpuMemory.cpp,
# the inplace=True mend): the CUDA tests, torch-mlir's e2e suite; then where
# the HF models of the call-path bench spend device time against Inductor.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 120 python3 -m pytest -q test/test_native_path.py test/test_gpu.py \
   test/test_outside_writes.py test/test_optim.py test/test_dropout.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
E2E_SHARD_S=150 bash utils/device/e2e.sh
timeout 200 python3 utils/device/model_profile.py > $OUT/profile.txt 2>&1
grep -E "^==|device time per call|^call|total" $OUT/profile.txt | head -40
