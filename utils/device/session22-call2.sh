#!/usr/bin/env bash
# Twenty-second session, second GPU-machine call (2026-11-29): the call
# path after the plan evaluation stopped formatting text per node, CUDA
# runs kept the GIL, and results were allocated like a call tensor; then
# why torch.compile(opt.step, backend="tgc") differs from eager (CPU and
# CUDA). Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 200 python3 utils/bench/python_bench.py --call-path --phases --only "x + 1" 2>&1 | grep -v -i warn | tee $OUT/x1.txt
timeout 200 python3 utils/bench/python_bench.py --call-path --phases --only "20 x" 2>&1 | grep -v -i warn | tee $OUT/mlp.txt
timeout 200 python3 utils/bench/python_bench.py --call-path --phases --only "relu" 2>&1 | grep -v -i warn | tee $OUT/relu.txt
timeout 150 python3 utils/device/backend_step_probe.py cpu > $OUT/step-cpu.txt 2>&1
grep -v "^ *$" $OUT/step-cpu.txt | grep -E "differs|step [0-9]|Error|error|call done" | head -40
(cd .python-bundle && timeout 200 python3 -m pytest -q test/test_native_path.py test/test_gpu.py 2>&1) > $OUT/pytest.txt
tail -2 $OUT/pytest.txt; grep -E "^FAILED|^E  " $OUT/pytest.txt | head -20
