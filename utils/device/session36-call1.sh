#!/usr/bin/env bash
# Thirty-sixth session, first GPU-machine call: reduce-overhead's
# device-side checks as asserting kernels (no replay waits for them).
# The CUDA tests (the assert's child process among them), the zoo on CUDA
# in reduce-overhead mode, then the call-path bench's HF rows with a
# "host checks" row beside (TGC_BENCH_HOST_CHECKS=1). Carry
# .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
echo "check kernel in the native lib: $(strings .python-bundle/tgc/_lib/libtgc_capi.so | grep -c tgc_device_check)"
(cd .python-bundle && timeout 170 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  test/test_native_path.py 2>&1 | tail -4)
for m in hf torchvision; do
  timeout 70 python3 utils/zoo/zoo.py --models $m --modes reduce-overhead --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-$m.txt | head -6
done
TGC_BENCH_HOST_CHECKS=1 timeout 200 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/bench.txt 2>&1
grep -E "HF .*(inductor r-o|tgc )" $OUT/bench.txt | head -12
