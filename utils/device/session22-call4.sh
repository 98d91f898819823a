#!/usr/bin/env bash
# Twenty-second session, fourth GPU-machine call (2026-11-29): call 3's
# failures mended (Dynamo reads its own graph after the backend returns:
# the attributes are lifted in a copy; an island's update of a clone of an
# input). torch.compile(opt.step, backend="tgc") against eager, then the
# e2e suite. Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_optim.py test/test_outside_writes.py \
   test/test_graph_breaks.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
E2E_SHARD_S=200 bash utils/device/e2e.sh
# Where the compiled optimizer step's 2.8 ms of host time goes (GPT-2).
timeout 90 python3 -m cProfile -s tottime utils/bench/optimizer.py --models gpt2 --modes tgc \
  --steps 30 > $OUT/optim-profile.txt 2>&1
grep -A22 "Ordered by" $OUT/optim-profile.txt | cut -c1-150
