#!/usr/bin/env bash
# Thirty-third session, second GPU-machine call: the slot fix (db480f9:
# torch.Tensor's C slots put back after a trace) on PyTorch 2.11, and where a
# first call served by the disk cache spends its time (issue 22: <= 30 ms per
# graph). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE_DIR=/tmp/tgc-cache-tests
(cd .python-bundle && timeout 200 python3 -m pytest -q -p no:cacheprovider -x test/test_robustness.py test/test_graph_breaks.py 2>&1 | tail -3)
python3 utils/device/disk_hit_profile.py --models hf-bert,tv-convnext-tiny,hf-gpt2 --device cuda > $OUT/disk_hit.txt 2>&1
grep -E "first call|phases|disk:" $OUT/disk_hit.txt
