#!/usr/bin/env bash
# Thirty-fourth session, first GPU-machine call: a wider sweep of real
# models for wrong answers and crashes (the zoo's new hf-wide and
# torchvision-wide groups: 20 Hugging Face architectures and 13 torchvision
# models beyond the zoo's 14), on the bundle of 8debd87 (session 33's last
# commits, not run on the GPU before: the native extension's file split, a
# training IndexError), and the CUDA tests that cover session 33's work.
# Carry .python-bundle.tar.xz.
source utils/device/bundle.sh
export TGC_CACHE=0
timeout 230 python3 utils/zoo/zoo.py --models hf-wide --modes default,backend --device cuda > $OUT/zoo-hf-wide.txt 2>&1
echo "hf-wide rc=$?"; grep -vE " ok$" $OUT/zoo-hf-wide.txt | tail -25
timeout 170 python3 utils/zoo/zoo.py --models torchvision-wide --modes default --device cuda > $OUT/zoo-tv-wide.txt 2>&1
echo "tv-wide rc=$?"; grep -vE " ok$" $OUT/zoo-tv-wide.txt | tail -15
(cd .python-bundle && timeout 150 python3 -m pytest -q -x -p no:cacheprovider test/test_state_guards.py \
  test/test_native_path.py test/test_training.py test/test_robustness.py 2>&1 | tail -4)
