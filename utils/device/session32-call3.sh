#!/usr/bin/env bash
# Thirty-second session, third GPU-machine call, on the bundle of the
# review's mends (7d761e8): graph equality over the zoo, the tracer's
# tests on PyTorch 2.11 (test_fx's ExportedProgram test failed in call 1:
# its message, with approximate traces on and off), the zoo on the CPU.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
timeout 150 python3 utils/device/approx_trace_check.py --family hf,torchvision --scale 4 2>&1 | grep -v transformers | tail -14
cd .python-bundle
for a in 1 0; do
  TGC_TRACE_APPROXIMATE=$a timeout 60 python3 -m pytest -q -p no:cacheprovider --tb=line \
    test/test_fx.py -k exported_program_with_dynamic_dim 2>&1 | grep -E "passed|failed|Unsupported|Error" | head -5
done
timeout 150 python3 -m pytest -q -p no:cacheprovider test/test_approximate_trace.py \
  test/test_graph_breaks.py test/test_outside_writes.py test/test_data_scalars.py test/test_fx.py 2>&1 | tail -4
cd ..
export TGC_CACHE=0
for m in torchvision hf; do
  timeout 100 python3 utils/zoo/zoo.py --models $m --modes default --device cpu > $OUT/zoo-$m-cpu.txt 2>&1
  grep -E "runs:" $OUT/zoo-$m-cpu.txt
done
