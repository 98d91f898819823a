#!/usr/bin/env bash
# Thirty-sixth session, second GPU-machine call, on the bundle of 4657c33
# (data-independent masks folded: aranges, amax of splats, attention masks
# that keep everything; in reduce-overhead, gathers assert in their kernels):
# torch-mlir's e2e suite (CPU tensors), the CUDA
# tests, and the zoo's Hugging Face groups (whose masks fold) and
# torchvision on CUDA, looking for wrong answers. Carry
# .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
(cd .python-bundle && timeout 120 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  test/test_native_path.py 2>&1 | tail -2)
for m in hf torchvision; do
  timeout 70 python3 utils/zoo/zoo.py --models $m --modes default,reduce-overhead --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-$m.txt | head -6
done
for m in hf-wide hf-wide2; do
  timeout 110 python3 utils/zoo/zoo.py --models $m --modes default --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|wrong|MISMATCH|ERROR" $OUT/zoo-$m.txt | head -6
done
