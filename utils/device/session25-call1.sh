#!/usr/bin/env bash
# Twenty-fifth session, first GPU-machine call (2026-11-29): the previous
# session's last changes on CUDA, which its device time did not cover
# (tgc-sink-gathers after review, the saved-tensor pool with ABI 7, strided
# views in the partition): torch-mlir's e2e suite, the CUDA training, partition,
# native-path, dropout and GPU tests. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=130 bash utils/device/e2e.sh  # (a call returns at most 8 files)
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
(cd .python-bundle && timeout 260 python3 -m pytest -q test/test_partition.py test/test_training.py \
   test/test_native_path.py test/test_dropout.py test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
