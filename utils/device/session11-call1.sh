#!/usr/bin/env bash
# Eleventh session, one GPU-machine call (2026-11-28): the CPU work of issue
# 25 (register-tiled matrix products, parallel im2col convolutions) on the
# GPU machine's CPU, against eager and torch.compile's C++ backend, and the
# CPU-heavy Python tests there. Carry .python-bundle.tar.xz.
# Results: docs/performance.md ("CPU models", the GPU machine's CPU).
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
nvidia-smi -L
lscpu | grep -E "Model name|^CPU\(s\)|Thread|avx512f" | cut -c1-120
python3 -c "import torch, tgc; print(torch.__version__, torch.get_num_threads())"
# 1. Issue 25's rows: tgc.compile vs eager vs torch.compile (Inductor C++).
timeout 400 python3 utils/bench/cpu_models.py --python --repeat 10 \
  --json $OUT/cpu_python.json 2>&1 | tee $OUT/cpu_python.txt
# 2. The CPU-heavy Python tests on this machine's CPU (AVX-512 Xeon).
(cd .python-bundle && timeout 150 python3 -m pytest -q -x test/test_convolution.py \
  test/test_models.py test/test_profile.py 2>&1) > $OUT/pytest.txt; tail -5 $OUT/pytest.txt
