#!/usr/bin/env bash
# Twenty-ninth session, sixth GPU-machine call: where GPT-2's dynamic
# training step (one backward region now) spends the 0.7 ms it takes
# beyond a static one's: cProfile and native phases of both
# (dynamic_profile.py). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd utils/device && timeout 120 python3 dynamic_profile.py gpt2 > $OUT/prof.txt 2>&1; echo "rc=$?")
grep -E "^==" $OUT/prof.txt
grep -E "tottime|^ +[0-9]" $OUT/prof.txt | head -40 | cut -c1-150
