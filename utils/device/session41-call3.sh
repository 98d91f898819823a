#!/usr/bin/env bash
# Forty-first session, third GPU-machine call: the trace freezes the heap
# (tgc._trace_loop._heap_frozen). A/B from the disk cache against the
# trace before it (utils/device/old_trace_loop.py, untracked, copied over
# the bundle's), alternating, three rounds; then a cProfile of the new
# GPT-2-24 hit.
# Make the old tracer first (untracked): git show 864f50e:python/tgc/_trace_loop.py
#   > utils/device/old_trace_loop.py
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
cp .python-bundle/tgc/_trace_loop.py /tmp/new_trace_loop.py
for m in gpt2-24 hf-bert gpt2-2; do
  d=$(mktemp -d)
  timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --no-profile 2>&1 | grep "^==" | cut -c1-150
  for r in 1 2 3; do
    for v in old new; do
      cp utils/device/old_trace_loop.py .python-bundle/tgc/_trace_loop.py
      [[ $v == new ]] && cp /tmp/new_trace_loop.py .python-bundle/tgc/_trace_loop.py
      echo -n "$v "
      timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --no-profile 2>&1 \
        | grep "^==" | sed -e 's/phases.*trace.,/trace/' -e 's/, .disk cache.*//' -e 's/objects.*first/first/'
    done
  done
  [[ $m == gpt2-24 ]] && timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --top 45 2>&1 \
    | grep -v transformers > $OUT/prof-$m-disk-frozen.txt
done
cp /tmp/new_trace_loop.py .python-bundle/tgc/_trace_loop.py
