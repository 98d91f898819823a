#!/usr/bin/env bash
# Tenth session, first GPU call (2026-11-27): the profiler and the plan
# format change on the H100. Carry .python-bundle.tar.xz and
# .gpu-cases.tar.xz (utils/run-gpu-tests.py --save-cases, cases over 5 MB
# left out).
# Results: docs/testing.md ("Tenth session").
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
tar xJf .gpu-cases.tar.xz
export PYTHONPATH=$PWD/.python-bundle
nvidia-smi -L
python3 -c "import torch, tgc; print(torch.__version__, tgc.cuda_available())"
# 1. The Python tests that touch the GPU path and the report.
(cd .python-bundle && timeout 300 python3 -m pytest -q test/test_profile.py test/test_report.py \
  test/test_gpu.py test/test_native_path.py 2>&1) > $OUT/pytest.txt; tail -25 $OUT/pytest.txt
# 2. The runtime alone: every integration case on the GPU (artifacts of
#    format 2), then one case's profile from tgc-gpu-run.
cmake -S lib/Runtime -B build-rt >/dev/null && cmake --build build-rt -j 16 >/dev/null
timeout 240 python3 utils/run-gpu-tests.py --run-cases .gpu-cases --tgc-gpu-run build-rt/tgc-gpu-run 2>&1 \
  | tail -8 | tee $OUT/cases.txt
case=$(awk '/model-mlp.test RUN#1/ {print $1}' .gpu-cases/manifest.txt)
build-rt/tgc-gpu-run .gpu-cases/$case --repeat 20 --profile 2>&1 | tee $OUT/gpu-run-profile.txt
# 3. Profiles for the docs.
timeout 240 python3 utils/device/profile_demo.py 2>&1 | tee $OUT/profile_demo.txt
