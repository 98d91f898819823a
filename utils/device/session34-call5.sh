#!/usr/bin/env bash
# Thirty-fourth session, fifth GPU-machine call, on the bundle of the
# session's final C++ (scatter_add into a view of an argument copied): the
# e2e suite and the zoo's usual groups after the helpers' sweep fixes, the
# new hf-wide2 group (CLIP, Whisper, Wav2Vec2, MobileBERT, XLNet,
# Longformer, MPNet, Pegasus, GPT-NeoX, StableLM, Mixtral, FNet), the wide
# group's models fixed earlier, and the Python tests of the fixes on
# PyTorch 2.11. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
for m in hf torchvision; do
  timeout 60 python3 utils/zoo/zoo.py --models $m --modes default --device cuda > $OUT/zoo-$m.txt 2>&1
  echo "$m rc=$?"; grep -E "runs:|break|wrong|FAIL|MISMATCH|ERROR|cannot" $OUT/zoo-$m.txt | head -8
done
timeout 150 python3 utils/zoo/zoo.py --models hf-wide2 --modes default --device cuda -v > $OUT/zoo-wide2.txt 2>&1
echo "wide2 rc=$?"; grep -E "graph break:|Error|^hf-|runs:" $OUT/zoo-wide2.txt | cut -c1-240 | head -40
timeout 70 python3 utils/zoo/zoo.py --models hf-roberta,hf-opt,hf-bart,hf-deberta-v2,hf-gptj,hf-bloom,hf-falcon \
  --modes default --device cuda > $OUT/zoo-wide.txt 2>&1
echo "wide rc=$?"; grep -E "^hf-|runs:" $OUT/zoo-wide.txt | head -9
(cd .python-bundle && timeout 60 python3 -m pytest -q -p no:cacheprovider test/test_scatter.py \
  test/test_graph_breaks.py test/test_robustness.py test/test_correctness.py 2>&1 | tail -2)
