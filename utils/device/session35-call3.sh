#!/usr/bin/env bash
# Thirty-fifth session, third GPU-machine call, on the bundle of 90728d3
# and db36980 (permutes fused on the GPU; residual adds as cuBLASLt's C
# operand): the CUDA tests, the zoo on CUDA (hf, hf-wide: transformers
# with residual adds and head splits everywhere; torchvision), then the
# call-path bench's HF rows and the models' device time against Inductor.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 100 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  test/test_native_path.py 2>&1 | tail -3)
for m in hf torchvision; do
  timeout 70 python3 utils/zoo/zoo.py --models $m --modes default,reduce-overhead --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-$m.txt | head -6
done
timeout 100 python3 utils/zoo/zoo.py --models hf-wide --modes default --device cuda > $OUT/zoo-wide.txt 2>&1
echo "hf-wide rc=$?"; grep -E "runs:|wrong|MISMATCH|ERROR" $OUT/zoo-wide.txt | head -6
timeout 150 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/bench.txt 2>&1
grep -E "^\|" $OUT/bench.txt | head -8
timeout 60 python3 utils/device/model_profile.py --tgc-only > $OUT/profile.txt 2>&1
grep -E "^==|device time per call" $OUT/profile.txt | head -20
