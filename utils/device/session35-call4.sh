#!/usr/bin/env bash
# Thirty-fifth session, fourth GPU-machine call, on the bundle of cbc7209
# (permutes fused on the GPU, residual adds as cuBLASLt's C operand, the
# residual after a reshape): the runtime's self-test (a bias + residual
# GEMM), the CUDA tests, the zoo on CUDA (hf and torchvision in default
# and reduce-overhead, hf-wide), then the call-path bench's HF rows and
# TGC's device time per model. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
python3 -c "import tgc._capi as c; print('bundle native lib:', c.__file__)" 2>&1 | tail -1
echo "bias_residual in the native lib: $(strings .python-bundle/tgc/_lib/libtgc_capi.so | grep -c bias_residual)"
(cmake -S lib/Runtime -B /tmp/rt -DCMAKE_BUILD_TYPE=Release > /tmp/rt.log 2>&1 && cmake --build /tmp/rt -j 16 >> /tmp/rt.log 2>&1 \
  && /tmp/rt/tgc-gpu-selftest lib/Runtime/tools/vector_add.ptx 2>&1 | grep -E "gemm|passed|failed|FAIL" | head -8) || tail -5 /tmp/rt.log
(cd .python-bundle && timeout 100 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  test/test_native_path.py 2>&1 | tail -2)
for m in hf torchvision; do
  timeout 70 python3 utils/zoo/zoo.py --models $m --modes default,reduce-overhead --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-$m.txt | head -6
done
timeout 100 python3 utils/zoo/zoo.py --models hf-wide --modes default --device cuda > $OUT/zoo-wide.txt 2>&1
echo "hf-wide rc=$?"; grep -E "runs:|wrong|MISMATCH|ERROR" $OUT/zoo-wide.txt | head -6
timeout 150 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/bench.txt 2>&1
grep -E "HF .*(inductor r-o|tgc )" $OUT/bench.txt | head -12
timeout 60 python3 utils/device/model_profile.py --tgc-only > $OUT/profile.txt 2>&1
grep -E "^==|device time per call|residual" $OUT/profile.txt | head -20
