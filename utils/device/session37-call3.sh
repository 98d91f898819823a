#!/usr/bin/env bash
# Thirty-seventh session, third GPU-machine call: the final bundle
# (BERT's token-type lookup once per position, expanded after:
# tgc-sink-gathers; and the CPU changes). torch-mlir's e2e suite on CPU
# tensors, the CUDA tests, and the zoo's Hugging Face group on CUDA in
# both modes. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
E2E_SHARD_S=200 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1
head -8 $OUT/e2e-summary.txt; grep "did not finish" $OUT/e2e-summary.txt
(cd .python-bundle && timeout 200 python3 -m pytest -q -p no:cacheprovider test/test_gpu.py \
  test/test_native_path.py test/test_ops.py -k "not slow" 2>&1 | tail -4)
for mode in default reduce-overhead; do
  timeout 80 python3 utils/zoo/zoo.py --models hf --modes $mode --device cuda > $OUT/zoo-hf-$mode.txt 2>&1
  echo "hf $mode rc=$?"; grep -E "runs:|wrong|FAIL|MISMATCH|ERROR" $OUT/zoo-hf-$mode.txt | head -6
done
