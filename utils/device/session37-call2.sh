#!/usr/bin/env bash
# Thirty-seventh session, second GPU-machine call: call 1's CPU rows on
# the host's 16 threads moved by up to 3x between its three runs (the
# convolutions 0.27-0.80 ms). Here the two settings alternate, three
# rounds each, in fresh processes: the default (512-bit vectors, a
# row's divisions by one reciprocal) against vector-width=256, and
# against exact-division=1. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
rows=convs,matmul512,chain,encoder,resnet18
for round in 1 2 3; do
  for opts in "" "vector-width=256" "exact-division=1"; do
    echo "== round $round options '$opts'"
    timeout 60 python3 utils/bench/cpu_models.py --python --repeat 30 --no-torch-compile \
      --only $rows ${opts:+--options "$opts"} 2>&1 | grep -v -i warn | tail -5
  done
done
