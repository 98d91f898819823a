#!/usr/bin/env bash
# Fourteenth session, third GPU-machine call (2026-11-28): the model zoo on
# CUDA with TF32 convolutions (eager's cuDNN and TGC's cuBLASLt GEMMs both
# round to TF32, by different algorithms: the results must still agree
# within the zoo's f32 tolerance). Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
timeout 400 python3 utils/zoo/zoo.py --models all --modes default --device cuda \
  > $OUT/zoo-cuda.txt 2>&1
grep -E "^[a-z].* (ok|wrong|error|cannot)|runs:" $OUT/zoo-cuda.txt | tail -30
