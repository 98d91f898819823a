#!/usr/bin/env bash
# Twenty-first session, fifth GPU-machine call (2026-11-29): the model zoo
# on CUDA alone on the final bundle (call 4's 170 s limit cut it after 11
# models, all ok). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 290 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error" $OUT/zoo.txt | grep -v -i warn | tail -25
