#!/usr/bin/env bash
# Thirty-second session, first GPU-machine call: the tracer with large CPU
# products and convolutions left uncomputed (tgc._approximate) and its
# per-op overhead cut. Graph equality of approximate and exact traces on
# the zoo's Hugging Face and torchvision models (PyTorch 2.11,
# transformers 5), torch-mlir's e2e suite on CPU tensors, the zoo on the
# CPU and on CUDA, the tests of the tracer on 2.11, and compile times.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
timeout 150 python3 utils/device/approx_trace_check.py --family hf,torchvision --scale 4 2>&1 | tail -16
OUT=/tmp/e2eout E2E_SHARD_S=200 bash utils/device/e2e.sh | head -3
export TGC_CACHE=0
for m in torchvision hf; do
  timeout 100 python3 utils/zoo/zoo.py --models $m --modes default --device cpu > $OUT/zoo-$m-cpu.txt 2>&1
  grep -E "runs:" $OUT/zoo-$m-cpu.txt
done
(cd .python-bundle && timeout 120 python3 -m pytest -q -p no:cacheprovider -x \
  test/test_approximate_trace.py test/test_graph_breaks.py test/test_outside_writes.py \
  test/test_data_scalars.py test/test_fx.py 2>&1 | tail -3)
