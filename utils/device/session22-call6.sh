#!/usr/bin/env bash
# Twenty-second session, sixth GPU-machine call (2026-11-29), on the final
# bundle: no device index read per tensor with one CUDA device, stack
# buffers for small calls. The native-path and GPU tests, then the call
# path's x + 1 and MLP rows with their phases. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 120 python3 -m pytest -q test/test_native_path.py test/test_gpu.py \
   test/test_outside_writes.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 120 python3 utils/bench/python_bench.py --call-path --phases --only "x + 1" 2>&1 | grep -v -i warn | grep -E "tgc|eager|phases"
timeout 120 python3 utils/bench/python_bench.py --call-path --phases --only "20 x" 2>&1 | grep -v -i warn | grep -E "tgc|eager|phases"
