#!/usr/bin/env bash
# Thirtieth session, first GPU-machine call: the CPU JIT with outer loops
# kept from LLVM's unroller (tgc-keep-outer-loops) against unrolled
# (TGC_EXP_UNROLL_OUTER=1, the code before: a hook of that bundle only,
# not committed), on the host's 16 cores, two
# alternating rounds of cpu_models.py --python; then cold compiles with
# the IR verified once per pass pipeline against after every pass
# (TGC_VERIFY_EACH=1). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
ROWS=convs,resnet18,mobilenetv3,squeezenet,encoder,chain,matmul512,maxpool_bwd
for r in 1 2; do for e in 0 1; do
  echo "=== round $r, unroll_outer=$e"
  if [[ $e = 1 ]]; then export TGC_EXP_UNROLL_OUTER=1; else unset TGC_EXP_UNROLL_OUTER; fi
  timeout 110 python3 utils/bench/cpu_models.py --python --repeat 10 --no-torch-compile \
    --only $ROWS 2>&1 | tail -9
done; done
unset TGC_EXP_UNROLL_OUTER
for v in 0 1 0 1; do
  echo "=== TGC_VERIFY_EACH=$v"
  TGC_VERIFY_EACH=$v timeout 60 python3 utils/bench/compile_cache.py --models cpu-stack,hf-bert \
    --no-torch-compile 2>&1 | tail -4
done
