#!/usr/bin/env bash
# Twenty-third session, ninth GPU-machine call (2026-11-29), on the final
# bundle: tensor subclass arguments refused (the native path takes exact
# Tensor and Parameter objects), nested compiled functions traced through.
# The native path's CUDA tests. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 100 python3 -m pytest -q test/test_native_path.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
