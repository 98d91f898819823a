#!/usr/bin/env bash
# Forty-first session, second GPU-machine call: call 1's profile put 200 of
# GPT-2-24's ~680 ms trace in sys._getframe and 88 in FrameNotes.note (2
# layers: neither), both allocating frame objects: the collector's full
# passes over the process's heap (torch and transformers) is the guess.
# The trace with the collector on, frozen, off (no cProfile), from the
# disk cache, three rounds alternating.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
for m in gpt2-24 gpt2-2; do
  d=$(mktemp -d)
  timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --no-profile 2>&1 | grep "^=="
  for r in 1 2 3; do
    for g in on freeze off; do
      timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --no-profile --gc $g 2>&1 \
        | grep "^==" | sed -e 's/phases.*trace.,/trace/' -e 's/, .disk cache.*//'
    done
  done
done
