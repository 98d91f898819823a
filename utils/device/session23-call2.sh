#!/usr/bin/env bash
# Twenty-third session, second GPU-machine call (2026-11-29): a CUDA graph
# now starts after the plan's early device-side checks (the embeddings'
# index checks), which run and are read before the replay, so that a
# reduce-overhead call no longer waits for its whole graph. The CUDA tests
# of checks and graphs, the call path's real-model rows, the zoo on CUDA
# (not run since the inplace=True mend), and where GPT-2's training step
# spends device time. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 120 python3 -m pytest -q -rs test/test_gpu.py test/test_api.py \
   test/test_scatter.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
timeout 150 python3 utils/bench/python_bench.py --call-path --only HF 2>&1 | grep -v -i warn | tee $OUT/callpath.txt | tail -8
timeout 290 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error" $OUT/zoo.txt | grep -v -i warn | tail -25
