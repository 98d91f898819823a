#!/usr/bin/env bash
# Thirty-eighth session, fourth GPU-machine call: the review mend of the
# elementwise iterations (3d281d4: only roots without a reduction among
# their fused producers are coarsened) on the GPU machine's CPU:
# torch-mlir's e2e suite on CPU tensors and the zoo on the CPU, then
# ResNet-18's Python row against eager and Inductor's C++ backend.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
source utils/device/cpu-conformance.sh
export TGC_CACHE=0
timeout 100 python3 utils/bench/cpu_models.py --python --repeat 10 --only resnet18,squeezenet,mobilenetv3 \
  2>&1 | grep -v -i warn | tee $OUT/cpu_python.txt
