#!/usr/bin/env bash
# Thirty-seventh session, fourth GPU-machine call: the final bundle (after
# the review's mend: only a softmax's division becomes a product with
# 1/sum on the CPU). torch-mlir's e2e suite on CPU tensors, then the
# call-path bench's Hugging Face rows (BERT: 45 launches per call, 37 with
# reduce-overhead's device asserts). Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
E2E_SHARD_S=200 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1
head -3 $OUT/e2e-summary.txt; grep "did not finish" $OUT/e2e-summary.txt
(cd .python-bundle && timeout 60 python3 -m pytest -q -p no:cacheprovider test/test_ops.py \
  test/test_api.py -k "indexing or exact_division or vector_width" 2>&1 | tail -2)
timeout 280 python3 utils/bench/python_bench.py --call-path --only HF > $OUT/bench.txt 2>&1
echo "rc=$?"; grep -E "HF " $OUT/bench.txt | head -24
