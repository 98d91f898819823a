#!/usr/bin/env bash
# Thirty-eighth session, second GPU-machine call: elementwise roots in
# iterations of at least 512 elements (tgc-form-kernels, 0e88955) on top
# of call 1's products over small images (tgc-form-kernels' 64 x 64
# blocks for 128-511 columns read
# along j; tgc-vectorize-contractions' 4 x 4 tiles for 33-64 columns) on
# the GPU machine's CPU: torch-mlir's e2e suite on CPU tensors and the zoo
# on the CPU (run together), then issue 25's Python rows against eager and
# Inductor's C++ backend, twice, and ResNet-18's stages.
# The same commands as call 1 (the bundle differs). Carry
# .python-bundle.tar.xz and .e2e.
exec bash utils/device/session38-call1.sh
