#!/usr/bin/env bash
# Twenty-second session, first GPU-machine call (2026-11-29): where the
# host time of a native CUDA call goes (the phase profile of
# tgc_native.c), the cost of its pieces from Python, and the never-run
# torch.compile(opt.step, backend="tgc") test. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
python3 utils/device/callpath_probe.py 2>&1 | tee $OUT/probe.txt
timeout 200 python3 utils/bench/python_bench.py --call-path --phases --only "x + 1" 2>&1 | grep -v -i warn | tee $OUT/x1.txt
timeout 200 python3 utils/bench/python_bench.py --call-path --phases --only "20 x" 2>&1 | grep -v -i warn | tee $OUT/mlp.txt
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_optim.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
