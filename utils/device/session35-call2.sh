#!/usr/bin/env bash
# Thirty-fifth session, second GPU-machine call: the module texts of the
# call-path bench's HF models (to study their GPU kernels with tgc-opt on
# the CPU machine, where transformers is missing), the Python tests that
# call 1 cut short, and Whisper (hf-wide2's config fixed last session but
# not run). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 100 python3 utils/device/dump_model_graphs.py 2>&1 | tail -4
(cd .python-bundle && timeout 200 python3 -m pytest -q -p no:cacheprovider test/test_state_guards.py \
  test/test_dtypes.py test/test_api.py test/test_native_path.py 2>&1 | tail -3)
timeout 100 python3 utils/zoo/zoo.py --models hf-whisper --modes default --device cuda -v 2>&1 | grep -E "graph break:|Error|^hf-|runs:" | cut -c1-240 | head
