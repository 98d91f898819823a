#!/usr/bin/env bash
# Twenty-eighth session, fifth GPU-machine call: with index_put of
# independently dynamic indices and values guarded equal, and a
# slice_scatter over all of a dynamic dim compiled (GPT-2's and Llama's
# dynamic backward broke the graph on them): the dynamic tests, the
# scatter and movement tests, and the dynamic step's host time against a
# static one. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_training_dynamic.py \
   test/test_scatter.py test/test_movement.py test/test_symbolic_sizes.py 2>&1) > $OUT/pytest.txt
tail -1 $OUT/pytest.txt; grep -E "^FAILED" $OUT/pytest.txt | head
timeout 100 python3 utils/device/dynamic_train.py --models gpt2,llama > $OUT/dynamic_train.txt 2>&1
grep -E "graph break|specialization\(s\)|batch 8 step|FAILED" $OUT/dynamic_train.txt | cut -c1-300
timeout 60 python3 utils/device/dynamic_profile.py gpt2 > $OUT/prof.txt 2>&1
grep -E "^==" $OUT/prof.txt
