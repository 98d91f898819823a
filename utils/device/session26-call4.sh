#!/usr/bin/env bash
# Twenty-sixth session, fourth GPU-machine call (2026-11-29): concats whose
# producers write their slices in place (insert_slice chains, reshapes
# moved past the concat) on top of calls 2-3's row kernels and one-hot sum
# fold: torch-mlir's e2e suite, the CUDA movement and training tests, and
# the whole zoo. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=130 bash utils/device/e2e.sh  # (a call returns at most 8 files)
cp /tmp/e2eout/e2e.txt $OUT/e2e.txt
(cd .python-bundle && timeout 90 python3 -m pytest -q test/test_movement.py test/test_symbolic_sizes.py \
   test/test_training.py -k "concat or cat or cache or one_hot or vocabulary or gpt or bert" 2>&1) > $OUT/pytest.txt
grep -E "passed|failed" $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
timeout 330 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" $OUT/zoo.txt | grep -v -i warn | tail -25
