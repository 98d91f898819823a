#!/usr/bin/env bash
# Thirty-fourth session, fourth GPU-machine call: the Python of e4bc074 on
# the bundle of 57d0a86 (no C++ change since): the e2e suite and the zoo's
# usual groups after the operator changes (repeat, tile, repeat_interleave,
# cumsum along dynamic sizes, several index tensors checked per dim and
# along dynamic sizes, PyTorch's keyword names, TorchScript calls), the wide
# group's models that had graph breaks or failures, and the Python tests of
# those changes on PyTorch 2.11. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
for m in hf torchvision; do
  timeout 80 python3 utils/zoo/zoo.py --models $m --modes default --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|break|wrong|FAIL|MISMATCH|ERROR|cannot" $OUT/zoo-$m.txt | head -8
done
timeout 110 python3 utils/zoo/zoo.py --models hf-roberta,hf-opt,hf-bart,hf-deberta-v2,hf-gptj,hf-bloom,hf-falcon \
  --modes default --device cuda -v > $OUT/zoo-wide.txt 2>&1
echo "wide rc=$?"; grep -E "graph break:|Error|^hf-|runs:" $OUT/zoo-wide.txt | cut -c1-260 | head -30
(cd .python-bundle && timeout 100 python3 -m pytest -q -p no:cacheprovider test/test_robustness.py \
  test/test_ops.py test/test_formulas.py test/test_scatter.py -k "torchscript or is_compiling or repeat or keyword or cumsum or index_put or several" 2>&1 | tail -3)
(cd .python-bundle && timeout 60 python3 -m pytest -q -p no:cacheprovider test/test_correctness.py -k "several_index or tuple_of_tensors or views_see" 2>&1 | tail -2)
