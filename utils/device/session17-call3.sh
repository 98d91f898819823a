#!/usr/bin/env bash
# Seventeenth session, third GPU-machine call (2026-11-28): a868ebc's
# linear changes reach the GPU pipeline too (tgc-to-linalg collapses a
# linear's leading dims when its rows are few): the CUDA tests and the zoo
# on CUDA; the zoo on the CPU (the second call's was cut by its timeout);
# then the CPU rows, with the encoder, against eager and Inductor's C++
# backend on 16 cores. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
export TGC_CACHE=0
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_gpu.py -k "cuda or gpu or Gpu" 2>&1) > $OUT/pytest.txt
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -10
timeout 150 python3 utils/zoo/zoo.py --models all --modes default --device cuda 2>&1 \
  | grep -v -i warn > $OUT/zoo-cuda.txt; grep -v " ok$" $OUT/zoo-cuda.txt | tail -5
timeout 150 python3 utils/zoo/zoo.py --models all --modes default --device cpu 2>&1 \
  | grep -v -i warn > $OUT/zoo-cpu.txt; grep -v " ok$" $OUT/zoo-cpu.txt | tail -5
timeout 130 python3 utils/bench/cpu_models.py --python --repeat 10 \
  --only encoder,resnet18,convs --json $OUT/cpu_python.json 2>&1 | grep -v -i warn
