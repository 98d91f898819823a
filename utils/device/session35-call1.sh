#!/usr/bin/env bash
# Thirty-fifth session, first GPU-machine call (2026-11-30): the last
# stop's commits not yet run on a GPU (review mends, native float guard
# comparison): the e2e suite, the zoo's usual groups, the Python tests of
# those fixes on PyTorch 2.11; then where the HF models of the call-path
# bench spend device time against Inductor (kernel tables), as the start
# of the issue-20 kernel work. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
for m in hf torchvision; do
  timeout 60 python3 utils/zoo/zoo.py --models $m --modes default --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|break|wrong|FAIL|MISMATCH|ERROR|cannot" $OUT/zoo-$m.txt | head -8
done
(cd .python-bundle && timeout 90 python3 -m pytest -q -p no:cacheprovider test/test_state_guards.py \
  test/test_dtypes.py test/test_api.py test/test_native_path.py 2>&1 | tail -3)
timeout 200 python3 utils/device/model_profile.py > $OUT/profile.txt 2>&1
grep -E "^==|device time per call" $OUT/profile.txt | head -40
