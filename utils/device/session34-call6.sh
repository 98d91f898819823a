#!/usr/bin/env bash
# Thirty-fourth session, sixth GPU-machine call (what the device budget
# left): the Python tests of the session's last fixes on PyTorch 2.11 (the
# numerics, in-place promotion, as_strided islands, argument keys, module
# attributes, training fixes), on the bundle of the final C++ (call 5's).
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
(cd .python-bundle && timeout 110 python3 -m pytest -q -x -p no:cacheprovider test/test_dtypes.py \
  test/test_api.py test/test_graph_breaks.py test/test_scatter.py -k "not zoo" 2>&1 | tail -3)
