#!/usr/bin/env bash
# Eleventh session, second GPU-machine call (2026-11-28): issue 25's CPU
# rows again after the 2-D cache blocks of large products (25980ed), on the
# GPU machine's 16-core CPU, against eager and torch.compile's C++ backend.
# Carry .python-bundle.tar.xz. Results: docs/performance.md.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
timeout 420 python3 utils/bench/cpu_models.py --python --repeat 10 \
  --json $OUT/cpu_python.json 2>&1 | tee $OUT/cpu_python.txt
(cd .python-bundle && timeout 120 python3 -m pytest -q -x test/test_convolution.py \
  test/test_models.py 2>&1) > $OUT/pytest.txt; tail -3 $OUT/pytest.txt
