#!/usr/bin/env bash
# Thirty-third session, fourth GPU-machine call, on the bundle of the final
# code (ABI 8; the review's and second sweep's fixes: object guards filtered
# by the names the model uses, containers in containers, rebound tensors
# found again, permuted views checked per call, _slots for late subclasses,
# floor mod and signed terms in the CPU arena size, ceil-mode pooling,
# x[i, j] routing, FX state, empty slices). The e2e suite on CPU tensors
# (fullgraph), the zoo on CPU and CUDA, and the Python tests that cover them
# on PyTorch 2.11. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt 2>/dev/null
export TGC_CACHE=0
for d in cpu cuda; do
  for m in hf torchvision; do
    timeout 100 python3 utils/zoo/zoo.py --models $m --modes default --device $d > $OUT/zoo-$m-$d.txt 2>&1
    echo "$m $d"; grep -E "runs:|break|wrong|FAIL" $OUT/zoo-$m-$d.txt | head -5
  done
done
(cd .python-bundle && timeout 300 python3 -m pytest -q -p no:cacheprovider test/test_state_guards.py \
  test/test_correctness.py test/test_native_path.py test/test_robustness.py test/test_gpu.py \
  test/test_fx.py test/test_symbolic_sizes.py test/test_pooling.py test/test_api.py 2>&1 | tail -4)
