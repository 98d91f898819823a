#!/usr/bin/env bash
# Twenty-third session, fourth GPU-machine call (2026-11-29): the steps and
# kernel code of GPT-2 small's compiled training graphs, for the kernels
# with the most device time in call 3. Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 200 python3 utils/device/train_kernels.py backward_elementwise_50 backward_elementwise_21 \
  backward_elementwise_33 forward_rows_149 backward_warp_rows_53 backward_elementwise_30 \
  backward_elementwise_35 backward_elementwise_19 forward_elementwise_36 backward_elementwise_20 \
  2>&1 | grep -v -i warn | tail -40
ls -la $OUT
