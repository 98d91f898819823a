#!/usr/bin/env bash
# Fortieth session, first GPU-machine call: tgc-form-kernels no longer
# fuses an earlier root's loop (CPU kernels), and an eval batch norm after
# a convolution whose channels have more weights than outputs scales the
# result instead of the weights (CPU and CUDA graphs of every BatchNorm
# CNN change): the CPU's e2e suite and zoo, and the zoo on CUDA.
# Carry .python-bundle.tar.xz and .e2e.
source utils/device/bundle.sh
source utils/device/cpu-conformance.sh
timeout 200 python3 utils/zoo/zoo.py --models all --modes default --device cuda 2>&1 \
  | grep -v -i warn > $OUT/zoo-cuda.txt; tail -4 $OUT/zoo-cuda.txt
