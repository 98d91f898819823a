#!/usr/bin/env bash
# Tenth session, last GPU call: the GPU tests at the session's last GPU
# change (trace index, lazy libdevice, ptxas --split-compile), and compile
# times again. Carry .python-bundle.tar.xz.
set -uo pipefail
export PYTHONUNBUFFERED=1
tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
(cd .python-bundle && timeout 150 python3 -m pytest -q test/test_gpu.py test/test_profile.py \
  test/test_native_path.py test/test_report.py 2>&1) > $OUT/pytest.txt
tail -3 $OUT/pytest.txt
timeout 150 python3 utils/bench/compile_cache.py --models hf-bert,gpt2-2,gpt2-24 --no-torch-compile 2>&1 \
  | tee $OUT/compile_cache.txt
