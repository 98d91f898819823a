#!/usr/bin/env bash
# Forty-first session, fifth GPU-machine call: the trace freezes the heap
# again, whatever the caller froze (tgc._trace_loop._heap_frozen). A/B
# from the disk cache against the trace before it
# (utils/device/old_trace_loop.py, untracked), alternating, GPT-2-24 three
# rounds, HF BERT-4 two; with the full passes of the collector in the
# first call and in 300 K allocations after it (a deferred pass lands
# there).
# Make the old tracer first (untracked): git show 864f50e:python/tgc/_trace_loop.py
#   > utils/device/old_trace_loop.py
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
cp .python-bundle/tgc/_trace_loop.py /tmp/new_trace_loop.py
for m in gpt2-24 hf-bert; do
  d=$(mktemp -d)
  timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --no-profile 2>&1 | grep "^==" | cut -c1-300
  rounds=2; [[ $m == gpt2-24 ]] && rounds=3
  for r in $(seq $rounds); do
    for v in old new; do
      cp utils/device/old_trace_loop.py .python-bundle/tgc/_trace_loop.py
      [[ $v == new ]] && cp /tmp/new_trace_loop.py .python-bundle/tgc/_trace_loop.py
      echo -n "$v "
      timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --no-profile 2>&1 \
        | grep "^==" | sed -e 's/phases.*trace.,/trace/' -e 's/, .disk cache.*//' -e 's/frozen.*first/first/' -e 's/(profiled); //'
    done
  done
done
cp /tmp/new_trace_loop.py .python-bundle/tgc/_trace_loop.py
