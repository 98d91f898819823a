#!/usr/bin/env bash
# Thirty-fifth session, fifth GPU-machine call, on the bundle of 0497e4a
# (the review's mends of the GPU fusion: permutes only beside elementwise
# work, the reshape moved only for a GEMM, the residual matcher sharing
# the bias path): the runtime's GEMM self-tests, the CUDA tests, the zoo
# on CUDA. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
echo "bias_residual in the native lib: $(strings .python-bundle/tgc/_lib/libtgc_capi.so | grep -c bias_residual)"
(cmake -S lib/Runtime -B /tmp/rt -DCMAKE_BUILD_TYPE=Release > /tmp/rt.log 2>&1 && cmake --build /tmp/rt -j 16 >> /tmp/rt.log 2>&1 \
  && /tmp/rt/tgc-gpu-selftest lib/Runtime/tools/vector_add.ptx 2>&1 | grep -E "gemm|FAIL|passed|failed") || tail -5 /tmp/rt.log
(cd .python-bundle && timeout 100 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  test/test_native_path.py 2>&1 | tail -2)
for m in hf torchvision; do
  timeout 70 python3 utils/zoo/zoo.py --models $m --modes default,reduce-overhead --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-$m.txt | head -6
done
timeout 100 python3 utils/zoo/zoo.py --models hf-wide --modes default --device cuda > $OUT/zoo-wide.txt 2>&1
echo "hf-wide rc=$?"; grep -E "runs:|wrong|MISMATCH|ERROR" $OUT/zoo-wide.txt | head -6
timeout 100 python3 utils/zoo/zoo.py --models hf-wide2 --modes default --device cuda > $OUT/zoo-wide2.txt 2>&1
echo "hf-wide2 rc=$?"; grep -E "runs:|wrong|MISMATCH|ERROR" $OUT/zoo-wide2.txt | head -6
