#!/usr/bin/env bash
# Forty-first session, sixth GPU-machine call: call 5's HF BERT-4 rows were
# slower with the freeze, but trace_profile.py's counting of the freeze
# called gc.get_objects() (30-40 ms with an HF model) in the new rows
# only; without it, from the disk cache, old / new alternating, two
# rounds.
# Make the old tracer first (untracked): git show 864f50e:python/tgc/_trace_loop.py
#   > utils/device/old_trace_loop.py
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
cp .python-bundle/tgc/_trace_loop.py /tmp/new.py
d=$(mktemp -d)
timeout 100 python3 utils/device/trace_profile.py --model hf-bert --cache-dir $d --no-profile >/dev/null 2>&1
for r in 1 2; do
  for v in old new; do
    cp utils/device/old_trace_loop.py .python-bundle/tgc/_trace_loop.py
    [[ $v == new ]] && cp /tmp/new.py .python-bundle/tgc/_trace_loop.py
    echo -n "$v "
    timeout 100 python3 utils/device/trace_profile.py --model hf-bert --cache-dir $d --no-profile 2>&1 \
      | grep "^==" | sed -e 's/phases.*trace.,/trace/' -e 's/, .disk cache.*//' -e 's/frozen.*first/first/'
  done
done
cp /tmp/new.py .python-bundle/tgc/_trace_loop.py
