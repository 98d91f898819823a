#!/usr/bin/env bash
# Twenty-third session, eighth GPU-machine call (2026-11-29; the seventh is
# session23-call5.sh run again on the final bundle): the zoo on CUDA with
# GEMMs reading transposed operands. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 290 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error|runs:" $OUT/zoo.txt | grep -v -i warn | tail -25
