#!/usr/bin/env bash
# Thirty-sixth session, fourth GPU-machine call, on the bundle of the
# review's last mend (setDeviceAsserts counts its checks in one pass; the
# device-assert tests share one runner): the CUDA tests of device asserts
# and index checks, and the zoo's hf group in reduce-overhead. Carry
# .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  -k "index_checks or device_assert or recoverable or masks" 2>&1 | tail -2)
timeout 90 python3 utils/zoo/zoo.py --models hf --modes reduce-overhead --device cuda > $OUT/zoo-hf.txt 2>&1
echo "hf rc=$?"; grep -E "runs:|wrong|MISMATCH|ERROR" $OUT/zoo-hf.txt | head -4
