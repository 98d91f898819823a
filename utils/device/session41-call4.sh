#!/usr/bin/env bash
# Forty-first session, fourth GPU-machine call: call 3's freeze never ran
# (this machine's Python starts with 375 frozen objects, and the freeze
# was skipped where the caller froze). Now the trace raises the oldest
# generation's threshold instead (tgc._trace_loop._no_full_collections):
# A/B from the disk cache against the trace before it
# (utils/device/old_trace_loop.py, untracked), alternating, three rounds
# for GPT-2-24, two for HF BERT-4 and GPT-2-2.
# Make the old tracer first (untracked): git show 864f50e:python/tgc/_trace_loop.py
#   > utils/device/old_trace_loop.py
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
cp .python-bundle/tgc/_trace_loop.py /tmp/new_trace_loop.py
for m in gpt2-24 hf-bert gpt2-2; do
  d=$(mktemp -d)
  timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --no-profile 2>&1 | grep "^==" | cut -c1-400
  rounds=2; [[ $m == gpt2-24 ]] && rounds=3
  for r in $(seq $rounds); do
    for v in old new; do
      cp utils/device/old_trace_loop.py .python-bundle/tgc/_trace_loop.py
      [[ $v == new ]] && cp /tmp/new_trace_loop.py .python-bundle/tgc/_trace_loop.py
      echo -n "$v "
      timeout 120 python3 utils/device/trace_profile.py --model $m --cache-dir $d --no-profile 2>&1 \
        | grep "^==" | sed -e 's/phases.*trace.,/trace/' -e 's/, .disk cache.*//' -e 's/frozen.*first/first/'
    done
  done
done
cp /tmp/new_trace_loop.py .python-bundle/tgc/_trace_loop.py
