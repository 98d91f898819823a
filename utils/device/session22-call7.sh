#!/usr/bin/env bash
# Twenty-second session, seventh GPU-machine call (2026-11-29), on the
# final bundle after the review: a CUDA try-run refuses calls that would
# wait for the device (GEMM tuning, a larger arena, device-side checks, a
# module not loaded) so that the GIL is let go first; plain tensors only as
# allocation templates; inplace=True seen as an update. The CUDA tests
# that cover these, then torch-mlir's e2e suite. Carry
# .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 100 python3 -m pytest -q test/test_native_path.py test/test_gpu.py \
   test/test_outside_writes.py test/test_optim.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
E2E_SHARD_S=150 bash utils/device/e2e.sh
