#!/usr/bin/env bash
# Thirty-third session, last GPU-machine call: the Python of 378be6d (the
# second review's fixes: all object attributes guarded, tensor sources only
# when read from one entry, list indices as PyTorch 1.13 reads them) on the
# bundle of 01eafde (the same native ABI). The e2e suite on CPU tensors, the
# zoo on CUDA, and the tests of the changed code on PyTorch 2.11. Carry
# .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
export TGC_CACHE=0
for m in hf torchvision; do
  timeout 90 python3 utils/zoo/zoo.py --models $m --modes default --device cuda > $OUT/zoo-$m-cuda.txt 2>&1
  echo "$m cuda"; grep -E "runs:" $OUT/zoo-$m-cuda.txt
done
(cd .python-bundle && timeout 120 python3 -m pytest -q -p no:cacheprovider test/test_state_guards.py \
  test/test_correctness.py test/test_native_path.py test/test_fx.py 2>&1 | tail -2)
