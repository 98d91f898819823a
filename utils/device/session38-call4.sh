#!/usr/bin/env bash
# Thirty-eighth session, fourth GPU-machine call: the review mend of the
# elementwise iterations (3d281d4: only roots without a reduction among
# their fused producers are coarsened) on the GPU machine's CPU:
# torch-mlir's e2e suite on CPU tensors and the zoo on the CPU, then
# ResNet-18's Python row against eager and Inductor's C++ backend.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
E2E_SHARD_S=200 bash utils/device/e2e.sh > $OUT/e2e-summary.txt 2>&1 &
e2e=$!
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cpu 2>&1 \
  | grep -v -i warn > $OUT/zoo.txt; tail -2 $OUT/zoo.txt
wait $e2e
head -4 $OUT/e2e-summary.txt; grep "did not finish" $OUT/e2e-summary.txt
export TGC_CACHE=0
timeout 100 python3 utils/bench/cpu_models.py --python --repeat 10 --only resnet18,squeezenet,mobilenetv3 \
  2>&1 | grep -v -i warn | tee $OUT/cpu_python.txt
