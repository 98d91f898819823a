#!/usr/bin/env bash
# Twenty-second session, fifth GPU-machine call (2026-11-29): where the
# compiled optimizer step's host time goes (the native call's phases),
# then the model zoo on CUDA on the final bundle. Carry
# .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 60 python3 utils/device/optim_phases.py 2>&1 | grep -v -i warn | tail -4
timeout 290 python3 utils/zoo/zoo.py --models all --modes default --device cuda > $OUT/zoo.txt 2>&1
grep -E " ok$| ok | FAIL|fail|wrong|error" $OUT/zoo.txt | grep -v -i warn | tail -25
