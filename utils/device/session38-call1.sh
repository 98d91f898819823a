#!/usr/bin/env bash
# Thirty-eighth session, first GPU-machine call: the CPU products over
# small images (tgc-form-kernels' 64 x 64 blocks for 128-511 columns read
# along j; tgc-vectorize-contractions' 4 x 4 tiles for 33-64 columns) on
# the GPU machine's CPU: torch-mlir's e2e suite on CPU tensors and the zoo
# on the CPU (run together), then issue 25's Python rows against eager and
# Inductor's C++ backend, twice, and ResNet-18's stages.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
lscpu | grep -E "Model name|^CPU\(s\)|avx512f" | cut -c1-100 | head -3
source utils/device/cpu-conformance.sh
export TGC_CACHE=0
rows=convs,resnet18,squeezenet,mobilenetv3,encoder,matmul512
timeout 150 python3 utils/bench/cpu_models.py --python --repeat 10 --only $rows \
  --json $OUT/cpu_python.json 2>&1 | grep -v -i warn | tee $OUT/cpu_python.txt
timeout 100 python3 utils/bench/cpu_models.py --python --repeat 10 --only $rows \
  2>&1 | grep -v -i warn | tee $OUT/cpu_python_again.txt
timeout 60 python3 utils/bench/resnet_stages.py 2>&1 | grep -v -i warn | tee $OUT/stages.txt
